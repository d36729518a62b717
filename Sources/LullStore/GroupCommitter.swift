import Foundation
import GRDB
import LullCore
import Synchronization

/// Serialises every write on a thread of its own and folds whatever arrives while a commit is in
/// flight into the next one: concurrent submissions share an fsync, so durability does not cap
/// throughput.
///
/// The thread owns the pool's writer connection and blocks in SQLite's fsync, which no event
/// loop may do. A write costs one wake-up of that thread (none while it is busy) and one resume
/// of the waiting task: no actor hop, no dispatch queue, no task per commit. When writes share
/// a commit each runs in its own savepoint, so one failing write does not fail its batch-mates.
final class GroupCommitter: Sendable {
    typealias Work = @Sendable (Database, inout [JobEvent]) throws -> any Sendable

    private struct Pending {
        let work: Work
        let continuation: CheckedContinuation<any Sendable, any Error>
    }

    /// What the submitting tasks and the committer thread share, guarded by `condition`.
    private final class Inbox: @unchecked Sendable {
        let condition = NSCondition()
        var pending: [Pending] = []
        /// Cleared by the thread as it ends, so the database closes with the store, not later.
        var writer: (any DatabaseWriter)?
        let commits = Atomic<Int>(0)

        init(writer: any DatabaseWriter) { self.writer = writer }
    }

    private let inbox: Inbox
    private let thread: StoreThread

    /// Starts the committer thread. `didCommit` runs on it, in commit order, right after each
    /// commit is durable. With a `checkpointer`, the writer's WAL checkpoints are its job.
    init(
        writer: any DatabaseWriter,
        checkpointer: WALCheckpointer? = nil,
        didCommit: @escaping @Sendable ([JobEvent]) -> Void
    ) {
        let inbox = Inbox(writer: writer)
        self.inbox = inbox
        thread = StoreThread(name: "lull-store-wr", condition: inbox.condition) { thread in
            // Attached and detached here: the hook must be gone before the connection closes,
            // and the store may be released on this very thread.
            if let checkpointer { Self.onWriter(of: inbox) { checkpointer.attach(to: $0) } }
            while let (batch, writer) = Self.nextBatch(from: inbox, thread) {
                if Self.commit(batch, writer: writer, didCommit: didCommit) {
                    inbox.commits.add(1, ordering: .relaxed)
                }
            }
            if let checkpointer { Self.onWriter(of: inbox) { checkpointer.detach(from: $0) } }
            inbox.condition.lock()
            inbox.writer = nil
            inbox.condition.unlock()
        }
    }

    /// Nothing is pending by now (every writer holds the store until it is answered), so the
    /// wait is one wake-up.
    deinit {
        thread.stop()
    }

    /// How many transactions have been committed.
    var commits: Int { inbox.commits.load(ordering: .relaxed) }

    func perform<T: Sendable>(_ work: @escaping @Sendable (Database, inout [JobEvent]) throws -> T) async throws -> T {
        let value = try await withCheckedThrowingContinuation { continuation in
            inbox.condition.lock()
            inbox.pending.append(Pending(work: { db, events in try work(db, &events) }, continuation: continuation))
            inbox.condition.signal()
            inbox.condition.unlock()
        }
        return value as! T
    }

    /// Waits for work; nil once the committer is stopping and nothing is left.
    private static func nextBatch(from inbox: Inbox, _ thread: StoreThread) -> ([Pending], any DatabaseWriter)? {
        inbox.condition.lock()
        defer { inbox.condition.unlock() }
        while inbox.pending.isEmpty {
            if thread.stopping { return nil }
            inbox.condition.wait()
        }
        defer { inbox.pending.removeAll(keepingCapacity: true) }
        return (inbox.pending, inbox.writer!)
    }

    /// Runs `body` on the writer connection, holding the writer no longer than that.
    private static func onWriter(of inbox: Inbox, _ body: (Database) -> Void) {
        inbox.condition.lock()
        let writer = inbox.writer
        inbox.condition.unlock()
        writer?.writeWithoutTransaction(body)
    }

    /// Runs one transaction for the batch and answers every write in it; true if it committed.
    private static func commit(
        _ batch: [Pending],
        writer: any DatabaseWriter,
        didCommit: @Sendable ([JobEvent]) -> Void
    ) -> Bool {
        do {
            let (outcomes, events) = try writer.write { db in
                var events: [JobEvent] = []
                // Alone in its commit, a write needs no savepoint: if it fails, the whole
                // transaction rolls back and its error is the commit's.
                if batch.count == 1 {
                    let value = try batch[0].work(db, &events)
                    return ([Result<any Sendable, any Error>.success(value)], events)
                }
                var outcomes: [Result<any Sendable, any Error>] = []
                outcomes.reserveCapacity(batch.count)
                for item in batch {
                    let mark = events.count
                    do {
                        var produced: (any Sendable)?
                        try db.inSavepoint {
                            produced = try item.work(db, &events)
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
            didCommit(events)
            for (item, outcome) in zip(batch, outcomes) {
                item.continuation.resume(with: outcome)
            }
            return true
        } catch {
            for item in batch { item.continuation.resume(throwing: error) }
            return false
        }
    }
}
