import Foundation
import LullCore
import LullTestSupport
import Synchronization
import Testing

@testable import LullDaemon

/// Progress intervals are measured on the scheduling time line: a wall-clock step back (NTP
/// correcting a clock set to local time) must not hold every report back for the step's length,
/// which would also keep metered bytes from being charged while the transfer runs.
@Suite struct ProgressReporterTests {
    final class Heard: Sendable {
        let bytes = Mutex<[Int64]>([])
        var count: Int { bytes.withLock { $0.count } }
    }

    @Test func aWallClockStepBackDoesNotHoldReportsBack() async throws {
        let time = ManualTime()
        let wall = SettableWallClock(time)
        let heard = Heard()
        let reporter = ProgressReporter(
            interval: 1,
            clock: SchedulingTimeline(wall: wall, monotonic: time),
            sleeper: time
        ) { progress in heard.bytes.withLock { $0.append(progress.bytesDone) } }

        time.advance(by: .milliseconds(1100))
        reporter.report(TransferProgress(bytesDone: 100, bytesTotal: 1000))
        try await waitUntil("the first report") { heard.count == 1 }

        wall.jump(-3600)
        time.advance(by: .milliseconds(1100))
        reporter.report(TransferProgress(bytesDone: 200, bytesTotal: 1000))
        try await waitUntil("the report an interval later") { heard.count == 2 }
        #expect(heard.bytes.withLock { $0 } == [100, 200])
    }
}
