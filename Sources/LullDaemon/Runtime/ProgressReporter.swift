import Foundation
import LullCore
import Synchronization

/// Passes on at most one progress report per interval, adding the rate since the previous one;
/// transfers call it for every chunk. The first interval runs from the attempt's start, so a
/// transfer that ends within it reports nothing: its outcome carries the bytes, and a queue of
/// small files costs no progress write per file. A report held back by the interval is passed
/// on when the interval ends (unless a newer one went first), so the last bytes before a stall
/// or a slow stretch are reported rather than lost: without it, a burst followed by silence
/// would leave watchers looking at the burst's first chunk. Once `close` is called (the attempt
/// is over) nothing more is passed on.
final class ProgressReporter: Sendable {
    private struct State {
        /// When the last report was passed on; the attempt's start until then.
        var lastTime: Date
        /// What the rate is measured from: the last report passed on, or the first one heard.
        var rateBase: (time: Date, bytes: Int64)?
        /// The newest report held back by the interval.
        var pending: TransferProgress?
        var flushScheduled = false
        var closed = false
    }

    private let interval: TimeInterval
    /// Measures the intervals and rates: a clock a wall-clock step does not move.
    private let clock: any LullClock
    private let sleeper: any Sleeper
    private let sink: @Sendable (TransferProgress) async -> Void
    private let state: Mutex<State>

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
        state = Mutex(State(lastTime: clock.now()))
    }

    func report(_ progress: TransferProgress) {
        let now = clock.now()
        let (due, flushAfter): (TransferProgress?, TimeInterval?) = state.withLock { state in
            guard !state.closed else { return (nil, nil) }
            if state.rateBase == nil { state.rateBase = (now, progress.bytesDone) }
            let elapsed = now.timeIntervalSince(state.lastTime)
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

    /// The attempt is over: a report still held back is dropped (the outcome says where the
    /// transfer got to), and later ones are ignored.
    func close() {
        state.withLock { state in
            state.closed = true
            state.pending = nil
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
        var withRate = progress
        if let base = state.rateBase {
            let elapsed = now.timeIntervalSince(base.time)
            if elapsed > 0 { withRate.bytesPerSecond = Double(max(progress.bytesDone - base.bytes, 0)) / elapsed }
        }
        state.lastTime = now
        state.rateBase = (now, progress.bytesDone)
        return withRate
    }
}
