import Foundation
import LullCore
import Synchronization

/// Passes on at most one progress report per interval; transfers call it for every chunk.
final class ProgressReporter: Sendable {
    private let interval: TimeInterval
    private let clock: any LullClock
    private let sink: @Sendable (TransferProgress) async -> Void
    private let lastSent = Mutex<Date?>(nil)

    init(interval: TimeInterval, clock: any LullClock, sink: @escaping @Sendable (TransferProgress) async -> Void) {
        self.interval = interval
        self.clock = clock
        self.sink = sink
    }

    func report(_ progress: TransferProgress) {
        let now = clock.now()
        let due = lastSent.withLock { last -> Bool in
            if let last, now.timeIntervalSince(last) < interval { return false }
            last = now
            return true
        }
        if due { Task { await sink(progress) } }
    }
}
