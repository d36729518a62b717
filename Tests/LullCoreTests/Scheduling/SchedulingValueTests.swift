import Foundation
import LullCore
import Testing

@Suite struct SchedulingValueTests {
    @Test func stricterWinsWhenCombiningClassAndJob() {
        let origin = ConfigOrigin(file: "/etc/lull/lull.toml", line: 3, key: "classes.utility.min_battery")
        var utility = JobClassPolicy.utility
        utility.origins[.minBattery] = origin
        let loose = EffectiveConstraints(classPolicy: utility, job: JobConstraints(minBattery: 5))
        #expect(loose.minBattery == 10 && loose.minBatterySource == .classPolicy(origin))
        let strict = EffectiveConstraints(
            classPolicy: utility,
            job: JobConstraints(network: .unmetered, requiresAC: true, minBattery: 50)
        )
        #expect(strict.minBattery == 50 && strict.minBatterySource == .job)
        #expect(strict.requiresAC && strict.requiresACSource == .job)
        #expect(!strict.allowMetered && strict.allowMeteredSource == .job)
        #expect(!strict.allowCellular)
        // A job cannot loosen the class: background stays unmetered whatever the job says.
        let background = EffectiveConstraints(classPolicy: .background, job: .none)
        #expect(!background.allowMetered && background.allowMeteredSource == .classPolicy(nil))
        #expect(background.minBattery == 30)
        let notCellular = EffectiveConstraints(classPolicy: .default, job: JobConstraints(network: .notCellular))
        #expect(notCellular.allowMetered && !notCellular.allowCellular)
        #expect(
            notCellular.allowsLink(metered: true, cellular: false)
                && !notCellular.allowsLink(metered: true, cellular: true)
        )
    }

    @Test func defaultsFollowTheDomainNotes() {
        let policy = SchedulingPolicy.defaults
        #expect(policy.classes.map(\.name) == JobClassName.builtIn)
        let interactive = policy.classPolicy(named: "interactive")!
        #expect(!interactive.requiresAC && interactive.minBattery == nil)
        let background = policy.classPolicy(named: "background")!
        #expect(background.minBattery == 30 && !background.allowMetered && !background.requiresAC)
        let maintenance = policy.classPolicy(named: "maintenance")!
        #expect(
            maintenance.requiresAC && !maintenance.allowMetered
                && maintenance.window == DailyWindow(fromHour: 1, toHour: 5)
        )
        #expect(policy.classPolicy(named: "utility")!.minBattery == 10)
        #expect(policy.starvationBound(forClass: "background") == 9 + 5 + 3 + 2)
    }

    @Test func dailyWindowsWrapMidnight() {
        let night = DailyWindow(fromHour: 22, toHour: 6)
        #expect(night.wrapsMidnight && night.description == "22:00–06:00")
        #expect(
            night.contains(secondOfDay: 23 * 3600) && night.contains(secondOfDay: 3600)
                && !night.contains(secondOfDay: 12 * 3600)
        )
        #expect(night.secondsUntilOpen(secondOfDay: 21 * 3600) == 3600)
        #expect(night.secondsUntilOpen(secondOfDay: 6 * 3600) == 16 * 3600)
        let day = DailyWindow(fromHour: 1, toHour: 5)
        #expect(day.secondsUntilOpen(secondOfDay: 5 * 3600) == 20 * 3600)
        #expect(DailyWindow(startMinute: 0, endMinute: 0).contains(secondOfDay: 12_345))
    }

    @Test func localTimeFollowsOffsetChanges() {
        // UTC+1 until 01:00 UTC on day 1, then UTC+2 (a spring-forward).
        let change = at(hours(25))
        let local = LocalTime(utcOffset: 3600, changes: [LocalTime.OffsetChange(at: change, utcOffset: 7200)])
        #expect(local.utcOffset(at: at(0)) == 3600 && local.utcOffset(at: change) == 7200)
        let window = DailyWindow(fromHour: 3, toHour: 4)
        // From 12:00 UTC day 0: 03:00 local on day 1 is 01:00 UTC under UTC+2 (not 02:00 under UTC+1).
        #expect(local.nextOpening(of: window, atOrAfter: at(hours(12))) == at(hours(25)))
        #expect(LocalTime.utc.nextMidnight(after: at(hours(3))) == at(hours(24)))
        #expect(LocalTime(utcOffset: -3600).nextMidnight(after: at(0)) == at(hours(1)))
        #expect(LocalTime(utcOffset: 7200).secondOfDay(at: at(hours(23))) == 3600)
    }

    @Test func backoffIsCappedJitteredAndHonoursRetryAfter() {
        let retry = RetryPolicy(maxAttempts: 4, backoffBase: 30, backoffCap: 300)
        #expect(retry.backoff(afterAttempt: 1, unitRandom: 1) == 30)
        #expect(retry.backoff(afterAttempt: 3, unitRandom: 0.5) == 60)
        #expect(retry.backoff(afterAttempt: 10, unitRandom: 1) == 300)
        #expect(retry.backoff(afterAttempt: 2, unitRandom: 0, retryAfter: 120) == 120)
        #expect(retry.allowsRetry(afterAttempt: 3) && !retry.allowsRetry(afterAttempt: 4))
    }

    @Test func periodicWindowsAndAdaptiveIntervals() {
        let periodic = PeriodicSchedule(every: 3600, flex: 60, jitter: 300, maxEvery: 4 * 3600)
        #expect(periodic.effectiveFlex() == 300)
        let window = periodic.nextWindow(after: at(0), salt: 42)
        #expect(window.due >= at(3600) && window.due < at(3900))
        #expect(window.due.timeIntervalSince(window.opens) == 300)
        #expect(periodic.nextWindow(after: at(0), salt: 42) == window, "jitter is deterministic per job")
        #expect(periodic.nextInterval(current: 3600, unchanged: true) == 7200)
        #expect(periodic.nextInterval(current: 3 * 3600, unchanged: true) == 4 * 3600)
        #expect(periodic.nextInterval(current: 4 * 3600, unchanged: false) == 3600)
        #expect(PeriodicSchedule(every: 60, flex: 0).every == PeriodicSchedule.minimumEvery)
    }

    @Test func reasonsRenderInPlainWords() {
        let reason = WaitingReason(
            code: .batteryBelow,
            seen: "battery 18%",
            limit: "min_battery 30",
            setting: "min_battery",
            className: "background",
            origin: ConfigOrigin(file: "/etc/lull/lull.toml", line: 14, key: "classes.background.min_battery")
        )
        #expect(reason.description == "battery 18% < min_battery 30 (class background, /etc/lull/lull.toml:14)")
        #expect(
            WaitingReason(code: .offline, seen: "network offline (NetworkManager)").description
                == "network offline (NetworkManager)"
        )
        #expect(
            WaitingReason.Code.allCases.map(\.rawValue) == [
                "on_battery", "battery_below", "metered", "cellular", "offline", "cpu_pressure", "memory_pressure",
                "outside_window", "not_before", "backoff", "class_full", "host_full", "kind_full", "owner_full",
                "global_full", "quota", "paused", "coalescing", "hold_down", "not_idle",
            ]
        )
    }
}
