import GRDB
import LullCore

/// Serialises every write and folds whatever arrives while a commit is in flight into the next
/// one: concurrent submissions share an fsync, so durability does not cap throughput.
/// Each write runs in its own savepoint, so one failing write does not fail its batch-mates.
actor GroupCommitter {
    typealias Work = @Sendable (Database, inout [JobEvent]) throws -> any Sendable

    private struct Pending {
        let work: Work
        let continuation: CheckedContinuation<any Sendable, any Error>
    }

    private let writer: any DatabaseWriter
    private let didCommit: @Sendable ([JobEvent]) -> Void
    private var pending: [Pending] = []
    private var draining = false
    private(set) var commits = 0

    init(writer: any DatabaseWriter, didCommit: @escaping @Sendable ([JobEvent]) -> Void) {
        self.writer = writer
        self.didCommit = didCommit
    }

    func perform<T: Sendable>(_ work: @escaping @Sendable (Database, inout [JobEvent]) throws -> T) async throws -> T {
        let value = try await withCheckedThrowingContinuation { continuation in
            pending.append(Pending(work: { db, events in try work(db, &events) }, continuation: continuation))
            if !draining {
                draining = true
                Task { await self.drain() }
            }
        }
        return value as! T
    }

    private func drain() async {
        while !pending.isEmpty {
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            await commit(batch)
        }
        draining = false
    }

    private func commit(_ batch: [Pending]) async {
        let works = batch.map(\.work)
        do {
            let (outcomes, events) = try await writer.write { db in
                var events: [JobEvent] = []
                var outcomes: [Result<any Sendable, any Error>] = []
                outcomes.reserveCapacity(works.count)
                for work in works {
                    let mark = events.count
                    do {
                        var produced: (any Sendable)?
                        try db.inSavepoint {
                            produced = try work(db, &events)
                            return .commit
                        }
                        outcomes.append(.success(produced!))
                    } catch {
                        events.removeSubrange(mark...)
                        outcomes.append(.failure(error))
                    }
                }
                return (outcomes, events)
            }
            commits += 1
            didCommit(events)
            for (item, outcome) in zip(batch, outcomes) {
                item.continuation.resume(with: outcome)
            }
        } catch {
            for item in batch { item.continuation.resume(throwing: error) }
        }
    }
}
