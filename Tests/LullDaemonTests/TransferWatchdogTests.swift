import LullCore
import Testing

@testable import LullTransfer

/// Local work the watchdog is told about (a download's final fsync and rename) is not
/// idleness; the same wait without it is.
@Suite struct TransferWatchdogTests {
    @Test func heldWorkOutlastsTheIdleLimitButUnheldWorkDoesNot() async throws {
        let watchdog = TransferWatchdog(idleSeconds: 0.2, totalSeconds: 60, sleeper: TaskSleeper())
        let value = try await watchdog.guarding {
            try await watchdog.withoutIdleLimit { try await Task.sleep(for: .milliseconds(800)) }
            return 1
        }
        #expect(value == 1)
        do {
            _ = try await watchdog.guarding {
                try await Task.sleep(for: .milliseconds(800))
                return 1
            }
            Issue.record("an 800 ms wait passed a 200 ms idle limit")
        } catch let failure as JobFailure {
            #expect(failure.code == "idle_timeout")
        }
    }

    @Test func theTotalLimitStillHoldsWhileIdlenessIsHeld() async throws {
        let watchdog = TransferWatchdog(idleSeconds: 10, totalSeconds: 0.3, sleeper: TaskSleeper())
        do {
            _ = try await watchdog.guarding {
                try await watchdog.withoutIdleLimit { try await Task.sleep(for: .seconds(5)) }
                return 1
            }
            Issue.record("a held wait passed the total limit")
        } catch let failure as JobFailure {
            #expect(failure.code == "total_timeout")
        }
    }
}
