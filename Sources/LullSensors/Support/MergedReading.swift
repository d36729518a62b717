import Synchronization

/// One reading made from two sources' readings (`SysfsBackedPowerSource`,
/// `KernelCheckedNetworkSource`): merged again whenever either source yields, and published when
/// the merge changed. Merges run one at a time, so a merge of a value read before the other side
/// changed is never published after the merge of the change.
final class MergedReading<Reading: Sendable & Equatable>: Sendable {
    let broadcaster: StateBroadcaster<Reading>
    private let merge: @Sendable () -> Reading
    private let changed: @Sendable (Reading) -> Void
    private let following = Mutex<Task<Void, Never>?>(nil)
    private let merging = Mutex(())

    /// - Parameters:
    ///   - merge: reads both sources' current readings and makes the one to publish.
    ///   - changed: told of each published change (for a debug line).
    init(
        _ initial: Reading,
        merge: @escaping @Sendable () -> Reading,
        changed: @escaping @Sendable (Reading) -> Void
    ) {
        broadcaster = StateBroadcaster(initial)
        self.merge = merge
        self.changed = changed
    }

    /// Follows both streams (each yields its source's reading first, so the first merges come at
    /// once), and publishes a first merge now.
    func follow<A: Sendable, B: Sendable>(_ first: AsyncStream<A>, _ second: AsyncStream<B>) {
        let task = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in first { self?.publish() } }
                group.addTask { for await _ in second { self?.publish() } }
            }
        }
        following.withLock { $0 = task }
        publish()
    }

    /// Stops following and ends every stream.
    func finish() {
        following.withLock { $0?.cancel() }
        broadcaster.finish()
    }

    private func publish() {
        merging.withLock { _ in
            let reading = merge()
            if broadcaster.update(reading) { changed(reading) }
        }
    }
}
