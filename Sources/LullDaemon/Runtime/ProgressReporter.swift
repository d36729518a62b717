import Foundation
import LullCore
import Synchronization

/// Passes on at most one progress report per interval, adding the rate since the previous one;
/// transfers call it for every chunk. A report held back by the interval is passed on when the
/// interval ends (unless a newer one went first), so the last bytes before a stall or a slow
/// stretch are reported rather than lost: without it, a burst followed by silence would leave
/// watchers looking at the burst's first chunk.
final class ProgressReporter: Sendable {
    private struct State {
        var lastTime: Date?
        var lastBytes: Int64 = 0
        /// The newest report held back by the interval.
        var pending: TransferProgress?
        var flushScheduled = false
    }

    private let interval: TimeInterval
    private let clock: any LullClock
    private let sleeper: any Sleeper
    private let sink: @Sendable (TransferProgress) async -> Void
    private let state = Mutex(State())

    init(
        interval: TimeInterval,
        clock: any LullClock,
        sleeper: any Sleeper,
        sink: @escaping @Sendable (TransferProgress) async -> Void
    ) {
        self.interval = interval
        self.clock = clock
        self.sleeper = sleeper
        self.sink = sink
    }

    func report(_ progress: TransferProgress) {
        let now = clock.now()
        let (due, flushAfter): (TransferProgress?, TimeInterval?) = state.withLock { state in
            guard let lastTime = state.lastTime else {
                state.lastTime = now
                state.lastBytes = progress.bytesDone
                return (progress, nil)
            }
            let elapsed = now.timeIntervalSince(lastTime)
            if elapsed >= interval {
                state.pending = nil
                return (Self.passOn(progress, since: &state, now: now), nil)
            }
            state.pending = progress
            guard !state.flushScheduled else { return (nil, nil) }
            state.flushScheduled = true
            return (nil, interval - elapsed)
        }
        if let due { Task { await sink(due) } }
        if let flushAfter {
            Task {
                try? await self.sleeper.sleep(for: .seconds(flushAfter))
                await self.flush()
            }
        }
    }

    /// The held-back report, if no newer one has gone out meanwhile.
    private func flush() async {
        let now = clock.now()
        let due: TransferProgress? = state.withLock { state in
            state.flushScheduled = false
            guard let pending = state.pending else { return nil }
            state.pending = nil
            return Self.passOn(pending, since: &state, now: now)
        }
        if let due { await sink(due) }
    }

    private static func passOn(_ progress: TransferProgress, since state: inout State, now: Date) -> TransferProgress {
        let elapsed = now.timeIntervalSince(state.lastTime ?? now)
        var withRate = progress
        if elapsed > 0 { withRate.bytesPerSecond = Double(max(progress.bytesDone - state.lastBytes, 0)) / elapsed }
        state.lastTime = now
        state.lastBytes = progress.bytesDone
        return withRate
    }
}
