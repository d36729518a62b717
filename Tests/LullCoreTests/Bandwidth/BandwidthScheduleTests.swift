import Foundation
import LullCore
import Testing

/// Which rate a limit has at a time, and which limits are over a job: pure, on given times.
@Suite struct BandwidthScheduleTests {
    /// 2026-03-02 00:00 local in a zone 1 h east of UTC, plus `hours`.
    static func at(_ hours: Double) -> Date {
        Date(timeIntervalSince1970: 1_772_406_000 + hours * 3600)
    }

    static let local = LocalTime(utcOffset: 3600)

    static let office = BandwidthSchedule(
        bytesPerSecond: 8 << 20,
        windows: [
            .init(window: DailyWindow(fromHour: 8, toHour: 18), bytesPerSecond: 1 << 20),
            .init(window: DailyWindow(fromHour: 12, toHour: 13), bytesPerSecond: 4 << 20),
            .init(window: DailyWindow(fromHour: 22, toHour: 6), bytesPerSecond: 64 << 20),
        ]
    )

    @Test func theFirstOpenWindowWinsElseTheAllDayRate() {
        let schedule = Self.office
        #expect(Self.local.secondOfDay(at: Self.at(0)) == 0)
        #expect(schedule.rate(at: Self.at(7.99), localTime: Self.local) == 8 << 20)
        #expect(schedule.rate(at: Self.at(8), localTime: Self.local) == 1 << 20)
        // 12:00–13:00 lies inside 08:00–18:00, which is listed first.
        #expect(schedule.rate(at: Self.at(12.5), localTime: Self.local) == 1 << 20)
        #expect(schedule.rate(at: Self.at(18), localTime: Self.local) == 8 << 20)
        #expect(schedule.rate(at: Self.at(23), localTime: Self.local) == 64 << 20)
        #expect(schedule.rate(at: Self.at(24 + 5), localTime: Self.local) == 64 << 20)
        // Windows alone: no limit outside them.
        var windowsOnly = schedule
        windowsOnly.bytesPerSecond = nil
        #expect(windowsOnly.rate(at: Self.at(7), localTime: Self.local) == nil)
        #expect(BandwidthSchedule.none.rate(at: Self.at(9), localTime: Self.local) == nil)
    }

    @Test func theNextChangeIsTheNearestOpeningOrClosing() {
        let schedule = Self.office
        #expect(schedule.nextChange(after: Self.at(7), localTime: Self.local) == Self.at(8))
        #expect(schedule.nextChange(after: Self.at(8), localTime: Self.local) == Self.at(12))
        #expect(schedule.nextChange(after: Self.at(12.5), localTime: Self.local) == Self.at(13))
        #expect(schedule.nextChange(after: Self.at(19), localTime: Self.local) == Self.at(22))
        #expect(schedule.nextChange(after: Self.at(23), localTime: Self.local) == Self.at(24 + 6))
        #expect(BandwidthSchedule(bytesPerSecond: 1024).nextChange(after: Self.at(1), localTime: Self.local) == nil)
    }

    @Test func aJobCountsAgainstTheDaemonItsClassAndItself() {
        var policy = SchedulingPolicy.defaults
        policy.bandwidth = BandwidthSchedule(bytesPerSecond: 10 << 20)
        let index = policy.classes.firstIndex { $0.name == "background" }!
        policy.classes[index].bandwidth = Self.office
        let id = JobID(7)
        let background = policy.bandwidthLimits(
            of: id,
            className: "background",
            ownRate: 2048,
            at: Self.at(9),
            localTime: Self.local
        )
        #expect(background == [.daemon: 10 << 20, .jobClass("background"): 1 << 20, .job(id): 2048])
        // A class without a limit, a job without one: only the daemon's.
        let plain = policy.bandwidthLimits(
            of: id,
            className: "default",
            ownRate: nil,
            at: Self.at(9),
            localTime: Self.local
        )
        #expect(plain == [.daemon: 10 << 20])
        // A class the policy does not know counts as default, as for scheduling.
        policy.classes[policy.classes.firstIndex { $0.name == "default" }!].bandwidth = BandwidthSchedule(
            bytesPerSecond: 4096
        )
        let unknown = policy.bandwidthLimits(
            of: id,
            className: "gone",
            ownRate: nil,
            at: Self.at(9),
            localTime: Self.local
        )
        #expect(unknown == [.daemon: 10 << 20, .jobClass("default"): 4096])
        #expect(policy.nextBandwidthChange(after: Self.at(9), localTime: Self.local) == Self.at(12))
    }
}
