import LullCore
import Synchronization

/// Caps the event streams one uid holds open. Each holds a connection and a file descriptor
/// for as long as its client likes: a client that opened enough of them took every descriptor
/// the daemon had, and nobody else could even ask for `status`. Root is not counted.
final class EventStreamLimit: Sendable {
    let perOwner: Int
    private let open = Mutex<[OwnerID: Int]>([:])

    init(perOwner: Int = 64) { self.perOwner = perOwner }

    /// A place for one more stream of `owner`, given back when the slot is released (whether
    /// the stream ran or its connection failed first); nil when the owner is at the limit.
    func reserve(for owner: OwnerID) -> Slot? {
        let granted = open.withLock { open in
            guard open[owner, default: 0] < perOwner else { return false }
            open[owner, default: 0] += 1
            return true
        }
        return granted ? Slot(limit: self, owner: owner) : nil
    }

    fileprivate func release(_ owner: OwnerID) {
        open.withLock { open in
            open[owner, default: 1] -= 1
            if open[owner] == 0 { open[owner] = nil }
        }
    }

    final class Slot: Sendable {
        private let limit: EventStreamLimit
        private let owner: OwnerID

        fileprivate init(limit: EventStreamLimit, owner: OwnerID) {
            self.limit = limit
            self.owner = owner
        }

        deinit { limit.release(owner) }
    }
}
