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
        /// Acknowledged only once on disk; false for a report a power cut may lose.
        let synced: Bool
        let continuation: CheckedContinuation<any Sendable, any Error>
    }

    /// What the submitting tasks and the committer thread share, guarded by `condition`.
    private final class Inbox: @unchecked Sendable {
        let condition = NSCondition()
        var pending: [Pending] = []
        /// Cleared by the thread as it ends, so the database closes with the store, not later.
        var writer: (any DatabaseWriter)?
        let commits = Atomic<Int>(0)
        let unsyncedCommits = Atomic<Int>(0)

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
            // Events committed since the last synced commit: each unsynced write makes one at most.
            var unsynced = 0
            while let (batch, writer) = Self.nextBatch(from: inbox, thread) {
                let synced = batch.contains(where: \.synced) || unsynced + batch.count > Self.unsyncedEventLimit
                // Counted before the writers hear back, so a count read after a write includes it.
                let counted: @Sendable () -> Void = {
                    inbox.commits.add(1, ordering: .relaxed)
                    if !synced { inbox.unsyncedCommits.add(1, ordering: .relaxed) }
                }
                guard
                    let events = Self.commit(
                        batch,
                        synced: synced,
                        writer: writer,
                        counted: counted,
                        didCommit: didCommit
                    )
                else { continue }
                unsynced = synced ? 0 : unsynced + events
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

    /// The most events unsynced writes may have committed since the last synced commit: what a
    /// power cut can take from the log at most.
    static let unsyncedEventLimit = 1_000

    /// How many transactions have been committed.
    var commits: Int { inbox.commits.load(ordering: .relaxed) }

    /// How many of them were committed without waiting for the disk.
    var unsyncedCommits: Int { inbox.unsyncedCommits.load(ordering: .relaxed) }

    /// Runs `work` in the next commit. With `synced` false the write is a report that a power cut
    /// may lose (it makes one event at most); it is answered once committed, before it is on disk,
    /// unless a synced write shares its commit.
    func perform<T: Sendable>(
        synced: Bool = true,
        _ work: @escaping @Sendable (Database, inout [JobEvent]) throws -> T
    ) async throws -> T {
        let value = try await withCheckedThrowingContinuation { continuation in
            inbox.condition.lock()
            inbox.pending.append(
                Pending(work: { db, events in try work(db, &events) }, synced: synced, continuation: continuation)
            )
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

    /// Runs one transaction for the batch and answers every write in it; the number of events it
    /// made if it committed, nil if not. Unsynced, it commits with `synchronous = NORMAL`: in WAL
    /// mode that appends to the log without an fsync, and the next synced commit's fsync of the
    /// same file takes it along.
    private static func commit(
        _ batch: [Pending],
        synced: Bool,
        writer: any DatabaseWriter,
        counted: @Sendable () -> Void,
        didCommit: @Sendable ([JobEvent]) -> Void
    ) -> Int? {
        do {
            let (outcomes, events) = try writer.writeWithoutTransaction { db in
                guard !synced else { return try transaction(batch, db) }
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
                return try transaction(batch, db)
            }
            counted()
            didCommit(events)
            for (item, outcome) in zip(batch, outcomes) {
                item.continuation.resume(with: outcome)
            }
            return events.count
        } catch {
            for item in batch { item.continuation.resume(throwing: error) }
            return nil
        }
    }

    private static func transaction(
        _ batch: [Pending],
        _ db: Database
    ) throws -> ([Result<any Sendable, any Error>], [JobEvent]) {
        var result: ([Result<any Sendable, any Error>], [JobEvent]) = ([], [])
        try db.inTransaction {
            result = try Self.run(batch, db)
            return .commit
        }
        return result
    }

    /// The batch's writes, each answered on its own: alone in its commit a write needs no
    /// savepoint (if it fails, the whole transaction rolls back and its error is the commit's).
    private static func run(
        _ batch: [Pending],
        _ db: Database
    ) throws -> ([Result<any Sendable, any Error>], [JobEvent]) {
        var events: [JobEvent] = []
        if batch.count == 1 {
            let value = try batch[0].work(db, &events)
            return ([.success(value)], events)
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
}
