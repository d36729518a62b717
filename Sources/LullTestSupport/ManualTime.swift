import LullCore
import Synchronization

/// Monotonic time that moves only when the test says: sleeps wait until `advance` passes their
/// deadline (or their task is cancelled), so a lease or timeout lapses when the test decides,
/// however slow the machine is.
public final class ManualTime: MonotonicClock, Sleeper {
    private struct Waiter {
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Duration = .zero
        var nextToken = 0
        var waiters: [Int: Waiter] = [:]
    }
    private let state = Mutex(State())

    public init() {}

    public func elapsed() -> Duration { state.withLock { $0.now } }

    /// Sleeps waiting now.
    public var sleeping: Int { state.withLock { $0.waiters.count } }

    /// Moves time on and wakes the sleeps whose deadline it reaches.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now += duration
            let due = state.waiters.filter { $0.value.deadline <= state.now }
            for token in due.keys { state.waiters[token] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return }
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now: Bool = state.withLock { state in
                    if Task.isCancelled { return true }
                    state.waiters[token] = Waiter(deadline: state.now + duration, continuation: continuation)
                    return false
                }
                if now { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: token) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
