import Foundation
import LullCore
import Testing

/// The rule that makes a periodic job's next occurrence from the one that ended.
@Suite struct PeriodicSuccessorTests {
    let hourly = PeriodicSchedule(every: 3600, flex: 600)

    @Test func aJobThatIsNotPeriodicHasNone() {
        #expect(PeriodicSuccessor.after(storedJob(1), endedAt: epoch, unchanged: false) == nil)
    }

    @Test func theNextWindowOpensAFlexBeforeThePeriodsEnd() throws {
        let next = try #require(
            PeriodicSuccessor.after(storedJob(1, owner: 1001, periodic: hourly), endedAt: epoch, unchanged: false)
        )
        #expect(next.job.owner == OwnerID(1001))
        #expect(next.job.createdAt == epoch)
        #expect(next.job.spec.notBefore == at(3000))
        #expect(next.job.spec.deadline == at(3600))
        #expect(next.job.spec.onDeadline == .run)
        #expect(next.job.spec.periodInterval == 3600)
        #expect(
            next.announcement
                == "the next occurrence runs between 2025-03-03T00:50:00Z and 2025-03-03T01:00:00Z"
        )
    }

    @Test func anOccurrenceThatEndedEarlyCountsFromItsDueTime() throws {
        let early = storedJob(1, periodic: hourly, deadline: at(600))
        let next = try #require(PeriodicSuccessor.after(early, endedAt: epoch, unchanged: false))
        #expect(next.job.spec.deadline == at(4200))
    }

    @Test func nothingNewStretchesThePeriodUpToItsCapAndNewDataResetsIt() throws {
        let adaptive = PeriodicSchedule(every: 3600, flex: 600, maxEvery: 10_800)
        var job = storedJob(1, periodic: adaptive)
        let stretched = try #require(PeriodicSuccessor.after(job, endedAt: epoch, unchanged: true))
        #expect(stretched.job.spec.periodInterval == 7200)
        #expect(stretched.announcement.hasSuffix(" (no new data: the period is stretched to 7200 s)"))
        job.spec.periodInterval = 7200
        #expect(PeriodicSuccessor.after(job, endedAt: epoch, unchanged: true)?.job.spec.periodInterval == 10_800)
        #expect(PeriodicSuccessor.after(job, endedAt: epoch, unchanged: false)?.job.spec.periodInterval == 3600)
    }

    @Test func eachOccurrenceOfAPushIsANewRequest() throws {
        let next = try #require(
            PeriodicSuccessor.after(storedJob(1, periodic: hourly), endedAt: epoch, unchanged: false) { "second" }
        )
        #expect(next.job.spec.payload.push?.idempotencyKey == "second")
    }
}
