import Foundation
import LullCore
import Synchronization

/// Passes on at most one progress report per interval, adding the rate since the previous one;
/// transfers call it for every chunk.
final class ProgressReporter: Sendable {
    private struct Last {
        var time: Date
        var bytes: Int64
    }

    private let interval: TimeInterval
    private let clock: any LullClock
    private let sink: @Sendable (TransferProgress) async -> Void
    private let last = Mutex<Last?>(nil)

    init(interval: TimeInterval, clock: any LullClock, sink: @escaping @Sendable (TransferProgress) async -> Void) {
        self.interval = interval
        self.clock = clock
        self.sink = sink
    }

    func report(_ progress: TransferProgress) {
        let now = clock.now()
        let due: TransferProgress? = last.withLock { last in
            if let previous = last {
                let elapsed = now.timeIntervalSince(previous.time)
                guard elapsed >= interval else { return nil }
                last = Last(time: now, bytes: progress.bytesDone)
                var withRate = progress
                withRate.bytesPerSecond = Double(max(progress.bytesDone - previous.bytes, 0)) / elapsed
                return withRate
            }
            last = Last(time: now, bytes: progress.bytesDone)
            return progress
        }
        if let due { Task { await sink(due) } }
    }
}
