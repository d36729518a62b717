import LullCore
import Synchronization

/// Tells event-stream followers that the log has grown. Followers that keep up read the new
/// events from a bounded tail of the newest (`RecentEvents`); one that fell further behind reads
/// what it missed from the store, so a slow follower costs a query, not an ever-growing buffer,
/// and can never skip an event.
///
/// A uid's follower sees only that uid's events, so it is woken only by those: with hundreds of
/// followers, a commit costs a read per follower that has something to read, not per follower.
/// Root's followers (no owner) are woken by every commit.
final class EventHub: Sendable {
    private struct Waiter {
        let owner: OwnerID?
        let after: Int64
        let continuation: CheckedContinuation<Int64, Never>
    }

    private struct State {
        var latest: Int64 = 0
        /// The newest sequence number of each uid's events published since start-up. An older
        /// event is in the store, which a follower reads before it first waits.
        var latestByOwner: [OwnerID: Int64] = [:]
        var nextToken: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var recent: RecentEvents

        func latest(for owner: OwnerID?) -> Int64 {
            guard let owner else { return latest }
            return latestByOwner[owner] ?? 0
        }
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - recentCapacity: how many of the newest events are kept for followers, at most;
    ///   - recentBytes: and about how many bytes they may hold.
    init(recentCapacity: Int = 4096, recentBytes: Int = 4 << 20) {
        state = Mutex(State(recent: RecentEvents(capacity: recentCapacity, byteBudget: recentBytes)))
    }

    /// The newest sequence number published so far.
    var latest: Int64 { state.withLock { $0.latest } }

    /// Followers waiting now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// The newest sequence number published so far among the events `owner` may see (all of
    /// them for nil): what a follower passes to `wait(after:for:)` after its first look.
    func latest(for owner: OwnerID?) -> Int64 { state.withLock { $0.latest(for: owner) } }

    /// Up to `limit` published events after `seq` that `owner` may see, from memory; nil when
    /// they are older than the tail kept, and so the store's to read.
    func recent(after seq: Int64, for owner: OwnerID?, limit: Int) -> [JobEvent]? {
        state.withLock { $0.recent.after(seq, owner: owner, limit: limit) }
    }

    /// Records that `events` (in sequence order) are durable and wakes the waiters that may see
    /// one of them.
    func published(_ events: [JobEvent]) {
        guard let last = events.last else { return }
        let woken = state.withLock { state -> [(CheckedContinuation<Int64, Never>, Int64)] in
            guard last.seq > state.latest else { return [] }
            state.latest = last.seq
            for event in events { state.latestByOwner[event.owner] = event.seq }
            state.recent.append(events)
            var woken: [(CheckedContinuation<Int64, Never>, Int64)] = []
            for (token, waiter) in state.waiters {
                let seen = state.latest(for: waiter.owner)
                guard seen > waiter.after else { continue }
                state.waiters[token] = nil
                woken.append((waiter.continuation, seen))
            }
            return woken
        }
        for (continuation, seq) in woken { continuation.resume(returning: seq) }
    }

    /// Records the newest sequence number of the log as found at start-up (no waiter yet).
    func published(upTo seq: Int64) {
        state.withLock { $0.latest = max($0.latest, seq) }
    }

    /// Returns once events after `seq` that `owner` may see (any event for nil) are published,
    /// or at once if they already are, with the newest such sequence number. Returns early, with
    /// `seq`, when the task is cancelled.
    func wait(after seq: Int64, for owner: OwnerID?) async -> Int64 {
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Int64? = state.withLock { state in
                    let seen = state.latest(for: owner)
                    if seen > seq || Task.isCancelled { return max(seen, seq) }
                    state.waiters[token] = Waiter(owner: owner, after: seq, continuation: continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: token) }
            waiter?.continuation.resume(returning: seq)
        }
    }
}
