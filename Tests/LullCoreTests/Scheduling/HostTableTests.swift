import Foundation
import LullCore
import Testing

/// Jobs to ever new hosts, each gone before the next comes: the scheduler's table of host names
/// stays bounded, and the queue it keeps is whole after the rebuilds that bound it.
@Suite struct HostTableTests {
    @Test func hostsOfJobsGoneDoNotAccumulate() {
        var scheduler = JobScheduler(policy: .defaults)
        let now = at(hours(12))
        scheduler.enqueue(job(1, host: "kept.example"), now: now)
        for n in Int64(2)..<20_000 {
            scheduler.enqueue(job(n, host: "h\(n).example"), now: now)
            let removed = scheduler.remove(JobID(n))
            #expect(removed)
        }
        #expect(scheduler.internedHosts <= 4096 + 2 + 1, "\(scheduler.internedHosts) hosts interned")
        #expect(scheduler.isQueued(JobID(1)))
        #expect(scheduler.queuedJob(JobID(1))?.host == "kept.example")
        let started = scheduler.decide(world: Worlds.pluggedIn, now: now).start.map(\.id)
        #expect(started == [JobID(1)])
    }

    /// Jobs already past an `expire` deadline (a restore after downtime, a batch) are found
    /// expired as they are enqueued; the rebuild that bounds the host table must not forget
    /// them before the next decision reports them. It did: 96 of 6,000 stayed queued in the
    /// store with nothing in memory to run or expire them.
    @Test func expirationsFoundBeforeARebuildAreStillReported() {
        var scheduler = JobScheduler(policy: .defaults)
        let now = at(hours(12))
        var expired: Set<JobID> = []
        for batch in Int64(0)..<3 {
            for n in batch * 5_000..<(batch + 1) * 5_000 {
                scheduler.enqueue(
                    job(n + 1, host: "h\(n).example", deadline: at(hours(11)), onDeadline: .expire),
                    now: now
                )
            }
            expired.formUnion(scheduler.decide(world: Worlds.pluggedIn, now: now).expired)
        }
        #expect(expired.count == 15_000)
        #expect(scheduler.queuedCount == 0)
        #expect(scheduler.internedHosts <= 4096 + 2 * 5_000 + 1, "\(scheduler.internedHosts) hosts interned")
    }

    /// A rebuild (a reload, or the host table's) carries each class's fair share on: the class
    /// served less so far goes first after it, as before it.
    @Test func aRebuildKeepsTheFairShares() {
        var scheduler = JobScheduler(policy: .defaults)
        let now = at(hours(12))
        // `default` is served alone for a while, then `utility` arrives.
        for n in Int64(1)...100 { scheduler.enqueue(job(n, "default"), now: now) }
        for _ in 0..<10 {
            for started in scheduler.decide(world: Worlds.pluggedIn, now: now).start {
                scheduler.jobFinished(started.id, at: now)
            }
        }
        for n in Int64(1001)...1040 { scheduler.enqueue(job(n, "utility"), now: now) }
        var rebuilt = scheduler
        rebuilt.updatePolicy(.defaults, now: now)
        let order = scheduler.decide(world: Worlds.pluggedIn, now: now).start.map(\.id)
        let rebuiltOrder = rebuilt.decide(world: Worlds.pluggedIn, now: now).start.map(\.id)
        #expect(!order.isEmpty)
        #expect(rebuiltOrder == order)
    }
}
