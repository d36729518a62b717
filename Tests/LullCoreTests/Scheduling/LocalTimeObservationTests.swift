import Foundation
import LullCore
import Testing

/// `LocalTime.observing` finds a zone's next offset change from nothing but an offset function:
/// checked against the transitions Foundation's zone database (ICU) knows.
@Suite struct LocalTimeObservationTests {
    private func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    private func observed(_ identifier: String, from now: Date) throws -> (LocalTime, TimeZone) {
        let zone = try #require(TimeZone(identifier: identifier))
        return (LocalTime.observing(from: now) { zone.secondsFromGMT(for: $0) }, zone)
    }

    @Test(arguments: [
        ("Europe/Berlin", "2026-01-15T12:00:00Z", "2026-03-29T01:00:00Z", 3600, 7200),
        ("Europe/Berlin", "2026-07-01T00:00:00Z", "2026-10-25T01:00:00Z", 7200, 3600),
        ("America/New_York", "2026-11-21T15:00:00Z", "2027-03-14T07:00:00Z", -18000, -14400),
        // Half an hour of daylight saving, and a change only minutes after `now`.
        ("Australia/Lord_Howe", "2026-10-03T15:25:30Z", "2026-10-03T15:30:00Z", 37800, 39600),
    ])
    func findsTheNextChangeToTheSecond(
        zone identifier: String,
        now: String,
        change: String,
        before: Int,
        after: Int
    ) throws {
        let start = utc(now)
        let (local, zone) = try observed(identifier, from: start)
        let expected = try #require(zone.nextDaylightSavingTimeTransition(after: start))
        #expect(expected == utc(change), "the test's own expectation matches the zone database")
        #expect(local.utcOffset == before)
        #expect(local.changes == [LocalTime.OffsetChange(at: expected, utcOffset: after)])
        #expect(local.utcOffset(at: expected.addingTimeInterval(-1)) == before)
        #expect(local.utcOffset(at: expected) == after)
    }

    @Test func aZoneWithoutChangesHasNone() throws {
        let (kolkata, _) = try observed("Asia/Kolkata", from: utc("2026-11-21T15:00:00Z"))
        #expect(kolkata.utcOffset == 19800 && kolkata.changes.isEmpty)
        #expect(LocalTime.observing(from: utc("2026-11-21T15:00:00Z")) { _ in 0 } == .utc)
    }

    @Test func aChangeAtTheHorizonsEdgeIsFoundAndOneBeyondItIsNot() {
        let now = utc("2026-01-01T00:00:00Z")
        let inside = now.addingTimeInterval(LocalTime.observationHorizon - 1)
        let found = LocalTime.observing(from: now) { $0 >= inside ? 60 : 0 }
        #expect(found.changes == [LocalTime.OffsetChange(at: inside, utcOffset: 60)])
        let beyond = now.addingTimeInterval(LocalTime.observationHorizon + 86_400 + 1)
        #expect(LocalTime.observing(from: now) { $0 >= beyond ? 60 : 0 }.changes.isEmpty)
    }
}
