import Synchronization

/// Tells event-stream followers that the log has grown. It carries only the newest sequence
/// number, never the events: followers read what they missed from the store, so a slow follower
/// costs a query, not an ever-growing buffer, and can never skip an event.
final class EventHub: Sendable {
    private struct State {
        var latest: Int64 = 0
        var nextToken: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Int64, Never>] = [:]
    }

    private let state = Mutex(State())

    /// The newest sequence number published so far.
    var latest: Int64 { state.withLock { $0.latest } }

    /// Records that events up to `seq` are durable and wakes every waiter.
    func published(upTo seq: Int64) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int64, Never>] in
            guard seq > state.latest else { return [] }
            state.latest = seq
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: seq) }
    }

    /// Returns once the log holds an event after `seq` (or at once if it already does), with the
    /// newest sequence number. Returns early, with `seq`, when the task is cancelled.
    func wait(after seq: Int64) async -> Int64 {
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Int64? = state.withLock { state in
                    if state.latest > seq || Task.isCancelled { return max(state.latest, seq) }
                    state.waiters[token] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: token) }
            waiter?.resume(returning: seq)
        }
    }
}
