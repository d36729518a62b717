import Synchronization

/// Job ids one task keeps current and another reads: the watch loop says which jobs are still
/// queued, and the task that asks the daemon why they wait reads it.
final class SharedIDs: Sendable {
    private let ids: Mutex<[Int64]>

    init(_ ids: [Int64]) { self.ids = Mutex(ids) }

    var current: [Int64] {
        get { ids.withLock { $0 } }
        set { ids.withLock { $0 = newValue } }
    }
}
