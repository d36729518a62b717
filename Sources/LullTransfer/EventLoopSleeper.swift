import LullCore
import NIOCore

/// Sleeps on an event loop's timer (its epoll `timerfd`), so waiting adds no thread and no
/// periodic wake-up; see `Sleeper` for why `Task.sleep` is not used.
public struct EventLoopSleeper: Sleeper {
    private let group: any EventLoopGroup

    public init(group: any EventLoopGroup) {
        self.group = group
    }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        // Capped at ~30 years, far beyond any wait the daemon asks for, so the deadline cannot overflow.
        let nanoseconds = min(max(0, duration / .nanoseconds(1)), 1e18)
        let delay = TimeAmount.nanoseconds(Int64(nanoseconds))
        let scheduled = group.any().scheduleTask(in: delay) {}
        try await withTaskCancellationHandler {
            do {
                try await scheduled.futureResult.get()
            } catch EventLoopError.cancelled {
                throw CancellationError()
            }
        } onCancel: {
            scheduled.cancel()
        }
    }
}
