import Synchronization

/// Shares one durability step among the callers that need it at about the same time, as group
/// commit shares a commit: a caller returns once a step that began after its call has returned.
/// While one step runs, the callers that arrive meanwhile wait for the next, which serves them
/// all. `perform` gets the items of one batch (in arrival order) and returns each one's failure,
/// or nil; batches are kept apart by key (a directory, a filesystem).
package final class SharedSyncs<Key: Hashable & Sendable, Item: Sendable>: Sendable {
    package typealias Perform = @Sendable (Key, [Item]) async -> [FileFailure?]

    private struct Waiter: Sendable {
        let item: Item
        let continuation: CheckedContinuation<FileFailure?, Never>
    }

    /// Per key with a step running: who waits for the next one.
    private let waiting = Mutex<[Key: [Waiter]]>([:])
    private let perform: Perform

    package init(perform: @escaping Perform) {
        self.perform = perform
    }

    /// Returns once a step for `key` that began after this call has returned, throwing the
    /// failure that step found for `item`.
    package func sync(_ item: Item, under key: Key) async throws(FileFailure) {
        let failure = await withCheckedContinuation { continuation in
            let waiter = Waiter(item: item, continuation: continuation)
            let first = waiting.withLock { waiting in
                guard waiting[key] == nil else {
                    waiting[key]!.append(waiter)
                    return false
                }
                waiting[key] = [waiter]
                return true
            }
            if first { Task { await self.drain(key) } }
        }
        if let failure { throw failure }
    }

    /// How many wait for the next step under `key` (for tests to know a batch has formed).
    func waitingCount(under key: Key) -> Int {
        waiting.withLock { $0[key]?.count ?? 0 }
    }

    /// Runs the step for everyone waiting, again while more arrive, then lets the key go.
    private func drain(_ key: Key) async {
        while true {
            let batch = waiting.withLock { waiting in
                let batch = waiting[key] ?? []
                waiting[key] = batch.isEmpty ? nil : []
                return batch
            }
            guard !batch.isEmpty else { return }
            let failures = await perform(key, batch.map(\.item))
            for (index, waiter) in batch.enumerated() {
                waiter.continuation.resume(returning: index < failures.count ? failures[index] : nil)
            }
        }
    }
}
