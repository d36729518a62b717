import Synchronization

/// Caps the control connections open at once, so that no local user, nor many together, can
/// take the descriptors root needs to be served: each non-root uid may hold `perUid`, and all
/// non-root uids together `nonRoot`, which stays below the process's descriptor limit. Root is
/// not counted against either. Also notices when the connections open fall well below their
/// peak, so that the memory a crowd of them held can be given back.
final class ConnectionLimit: Sendable {
    struct Caps: Sendable, Equatable {
        /// `[limits] max_connections_per_uid`.
        var perUid: Int
        /// `[limits] max_connections`, capped by the descriptor limit.
        var nonRoot: Int
    }

    /// Why a connection was refused, and whether it is the first refusal since its uid (or
    /// everyone, for the total) was last under the cap: only that one is worth a log line.
    struct Refusal: Sendable {
        enum Cap: Sendable {
            case perUid(Int)
            case nonRoot(Int)
        }
        var cap: Cap
        var first: Bool
    }

    private struct State {
        var caps: Caps
        var byUid: [UInt32: Int] = [:]
        var nonRoot = 0
        /// Every connection accepted and not yet closed, root's and refused ones too.
        var open = 0
        /// The most open since memory was last given back.
        var peak = 0
        var refusedUids: Set<UInt32> = []
        var refusingAll = false
    }

    /// Below this many open connections nothing is worth giving back.
    static let trimPeak = 64
    /// Memory is given back once the open connections have fallen to this share of their peak.
    static let trimFraction = 8

    private let state: Mutex<State>
    private let trim: @Sendable () -> Void

    /// - Parameter trim: called, outside any lock, when the connections open have fallen to an
    ///   eighth of a peak of at least `trimPeak`.
    init(_ caps: Caps, trim: @escaping @Sendable () -> Void = {}) {
        state = Mutex(State(caps: caps))
        self.trim = trim
    }

    /// The caps `max_connections_per_uid` and `max_connections` give under `descriptorLimit`:
    /// non-root connections together may hold at most half the descriptors, so the other half
    /// stays for root, the store and the transfers.
    static func caps(perUid: Int, nonRoot: Int, descriptorLimit: Int) -> Caps {
        Caps(perUid: perUid, nonRoot: max(1, min(nonRoot, descriptorLimit / 2)))
    }

    var caps: Caps { state.withLock { $0.caps } }

    /// New caps (a reload); connections already open stay open.
    func update(_ caps: Caps) {
        state.withLock { $0.caps = caps }
    }

    /// Counts a connection just accepted from `uid`: nil when it may be served, else why not.
    /// Every connection counted must be given back with `closed` once its channel closes.
    func opened(by uid: UInt32) -> Refusal? {
        state.withLock { state in
            state.open += 1
            state.peak = max(state.peak, state.open)
            guard uid != 0 else { return nil }
            let held = state.byUid[uid, default: 0]
            if held >= state.caps.perUid {
                return Refusal(cap: .perUid(state.caps.perUid), first: state.refusedUids.insert(uid).inserted)
            }
            if state.nonRoot >= state.caps.nonRoot {
                let first = !state.refusingAll
                state.refusingAll = true
                return Refusal(cap: .nonRoot(state.caps.nonRoot), first: first)
            }
            state.byUid[uid] = held + 1
            state.nonRoot += 1
            return nil
        }
    }

    /// Gives back what `opened` counted; `admitted` is whether it returned nil.
    func closed(by uid: UInt32, admitted: Bool) {
        let trimNow = state.withLock { state in
            state.open -= 1
            if admitted && uid != 0 {
                let held = state.byUid[uid, default: 1] - 1
                state.byUid[uid] = held == 0 ? nil : held
                state.nonRoot -= 1
                if held < state.caps.perUid { state.refusedUids.remove(uid) }
                if state.nonRoot < state.caps.nonRoot { state.refusingAll = false }
            }
            guard state.peak >= Self.trimPeak, state.open <= state.peak / Self.trimFraction else { return false }
            state.peak = state.open
            return true
        }
        if trimNow { trim() }
    }
}
