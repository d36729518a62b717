import Foundation
import LullCore
import Synchronization

/// Monotonic time, and a wall clock that moves with it, only when the test says: sleeps wait
/// until `advance` passes their deadline (or their task is cancelled), so a lease or timeout
/// lapses when the test decides, however slow the machine is.
public final class ManualTime: MonotonicClock, LullClock, Sleeper {
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
    /// The wall-clock time at the start, which `now()` moves on from with the monotonic time.
    public let wallOrigin: Date

    public init(wallOrigin: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        self.wallOrigin = wallOrigin
    }

    public func elapsed() -> Duration { state.withLock { $0.now } }

    public func now() -> Date {
        let elapsed = elapsed().components
        return wallOrigin.addingTimeInterval(Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18)
    }

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
