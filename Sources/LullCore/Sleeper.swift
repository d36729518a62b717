/// Waits out a span of time. The seam exists for one reason beyond fakes in tests: on Linux,
/// `Task.sleep` is served by libdispatch, and the first libdispatch worker thread it wakes arms
/// the dispatch work-queue monitor, a 1 Hz timer that then wakes an idle daemon forever. The
/// daemon sleeps on its event loops' timers instead (`EventLoopSleeper`).
public protocol Sleeper: Sendable {
    /// Returns after `duration` (at once when it is not positive); throws `CancellationError`
    /// when the task is cancelled first.
    func sleep(for duration: Duration) async throws
}

extension Sleeper {
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await sleep(for: deadline - .now)
    }
}

/// `Task.sleep`: for tools and tests that do not care which threads wake.
public struct TaskSleeper: Sleeper {
    public init() {}

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: max(duration, .zero))
    }
}
