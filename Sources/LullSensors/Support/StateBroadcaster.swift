import Synchronization

/// One current value and any number of subscribers told when it changes.
///
/// Every sensor keeps its reading in one of these: `current` is always answerable without
/// waiting, and `changes()` / `values()` hand out independent `AsyncStream`s. A stream keeps
/// only the newest undelivered value (`.bufferingNewest(1)`): a slow reader skips
/// intermediate states but always ends on the latest one, which is what a state consumer
/// (the scheduler's world snapshot) needs.
public final class StateBroadcaster<Value: Sendable & Equatable>: Sendable {
    private struct State {
        var value: Value
        var nextID = 0
        var subscribers: [Int: AsyncStream<Value>.Continuation] = [:]
        var finished = false
    }

    private let state: Mutex<State>

    public init(_ initial: Value) {
        state = Mutex(State(value: initial))
    }

    /// The latest value.
    public var current: Value {
        state.withLock { $0.value }
    }

    /// Number of live subscribers (for tests and diagnostics).
    public var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }

    /// Stores `value`; subscribers hear about it only when it differs from the previous one.
    /// Returns whether it was a change.
    @discardableResult
    public func update(_ value: Value) -> Bool {
        state.withLock { state in
            guard state.value != value else { return false }
            state.value = value
            // Yield under the lock so that every subscriber sees changes in the same order.
            for continuation in state.subscribers.values { continuation.yield(value) }
            return true
        }
    }

    /// Values set after this call (not the current one).
    public func changes() -> AsyncStream<Value> {
        makeStream(includingCurrent: false)
    }

    /// The current value first, then every change: no gap between reading and subscribing.
    public func values() -> AsyncStream<Value> {
        makeStream(includingCurrent: true)
    }

    /// Ends every stream; later subscribers get an already finished stream.
    public func finish() {
        let continuations = state.withLock { state -> [AsyncStream<Value>.Continuation] in
            state.finished = true
            let all = Array(state.subscribers.values)
            state.subscribers.removeAll()
            return all
        }
        for continuation in continuations { continuation.finish() }
    }

    private func makeStream(includingCurrent: Bool) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let id: Int? = state.withLock { state in
            if state.finished { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            if includingCurrent { continuation.yield(state.value) }
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }
}
