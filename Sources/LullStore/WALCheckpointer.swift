import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Copies the write-ahead log back into the database file on a thread and a connection of its
/// own, so that a commit does not wait for it.
///
/// Left to SQLite, the commit that takes the WAL past 1,000 pages runs the checkpoint itself:
/// it writes the changed pages into the database file and syncs it twice before it returns,
/// and every write queued behind that commit waits too (docs/performance.md). Here the
/// writer's WAL hook only tells this checkpointer, which runs passive checkpoints beside the
/// writer. When all frames are copied, the writer's next transaction starts the WAL over.
///
/// Passive checkpoints cannot finish while commits keep adding frames, so under sustained load
/// the WAL could grow without end. At `hardLimit` frames the hook checkpoints on the writer, as
/// SQLite would have done, with most of the copying already done.
public final class WALCheckpointer: Sendable {
    /// How many passes one request may run to catch up with frames added during the last one.
    private static let passesPerRequest = 3

    private final class Shared: @unchecked Sendable {
        let path: String
        let threshold: Int
        let hardLimit: Int
        let condition = NSCondition()
        var requested = false
        /// The hook's own state, touched only on the writer thread: the WAL size at the last
        /// commit and the size at which to ask for the next checkpoint. Asking again only a
        /// `threshold` later keeps the checkpointer from running pass after pass under load.
        var lastFrames = 0
        var nextRequestAt: Int
        /// The hook's context while attached (writer thread only): detaching releases it only if
        /// the hook is still ours.
        var hookContext: UnsafeMutableRawPointer?
        let passes = Atomic<Int>(0)
        let writerCheckpoints = Atomic<Int>(0)

        init(path: String, threshold: Int) {
            self.path = path
            self.threshold = threshold
            hardLimit = threshold * 4
            nextRequestAt = threshold
        }

        /// Runs on the writer thread inside each commit.
        func walDidGrow(to frames: Int, connection: OpaquePointer?, database: UnsafePointer<CChar>?) {
            // Fewer frames than last time: the WAL started over.
            if frames < lastFrames { nextRequestAt = threshold }
            lastFrames = frames
            if frames >= hardLimit {
                // What SQLite's own hook does. Busy means the checkpointer is in a pass, which
                // the next commit finds finished; any other error is the next commit's to report.
                if sqlite3_wal_checkpoint_v2(connection, database, SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_OK {
                    writerCheckpoints.add(1, ordering: .relaxed)
                }
                return
            }
            guard frames >= nextRequestAt else { return }
            nextRequestAt = frames + threshold
            condition.lock()
            requested = true
            condition.signal()
            condition.unlock()
        }
    }

    private let shared: Shared
    private let thread: StoreThread

    /// Starts the checkpointer's thread for the database at `path`; it is asked for a checkpoint
    /// each time the WAL grows by `threshold` pages. It opens its connection on its first
    /// checkpoint, so a daemon that writes little holds no second connection.
    public init(path: String, threshold: Int) {
        precondition(threshold > 0, "a checkpoint threshold of \(threshold) pages")
        let shared = Shared(path: path, threshold: threshold)
        self.shared = shared
        thread = StoreThread(name: "lull-store-ckpt", condition: shared.condition) { thread in
            Self.run(shared, thread)
        }
    }

    deinit {
        thread.stop()
    }

    /// Passive checkpoints run so far by the checkpointer's thread.
    var passes: Int { shared.passes.load(ordering: .relaxed) }

    /// Checkpoints the writer ran itself because the WAL reached the hard limit.
    var writerCheckpoints: Int { shared.writerCheckpoints.load(ordering: .relaxed) }

    /// Takes over the automatic checkpoint of the writer's connection (`db`). Call it on the
    /// thread that owns the writer, and `detach` there before the connection closes: the hook
    /// holds `shared` until then.
    func attach(to db: Database) { attach(toConnection: db.sqliteConnection) }

    func detach(from db: Database) { detach(fromConnection: db.sqliteConnection) }

    /// `attach(to:)` for a connection opened without GRDB (lull-bench's ceiling server, which
    /// must checkpoint exactly as the store does).
    public func attach(toConnection writer: OpaquePointer?) {
        guard shared.hookContext == nil else { return }
        let context = Unmanaged.passRetained(shared).toOpaque()
        shared.hookContext = context
        // Replaces SQLite's own hook, which is what runs the automatic checkpoint (its context
        // is a page count, not ours to release).
        _ = sqlite3_wal_hook(
            writer,
            { context, connection, database, frames in
                Unmanaged<Shared>.fromOpaque(context!).takeUnretainedValue()
                    .walDidGrow(to: Int(frames), connection: connection, database: database)
                return SQLITE_OK
            },
            context
        )
    }

    public func detach(fromConnection writer: OpaquePointer?) {
        guard let ours = shared.hookContext else { return }
        let current = sqlite3_wal_hook(writer, nil, nil)
        // Something replaced our hook meanwhile (`PRAGMA wal_autocheckpoint` does). Clearing it
        // above also cleared its automatic checkpoint; SQLite's default takes its place.
        if current != ours { _ = sqlite3_wal_autocheckpoint(writer, 1_000) }
        shared.hookContext = nil
        Unmanaged<Shared>.fromOpaque(ours).release()
    }

    private static func run(_ shared: Shared, _ thread: StoreThread) {
        var connection: DatabaseQueue?
        while waitForRequest(shared, thread) {
            do {
                if connection == nil {
                    var configuration = Configuration()
                    configuration.label = "lull.store.checkpoint"
                    configuration.qos = .default
                    connection = try DatabaseQueue(path: shared.path, configuration: configuration)
                }
                try connection?.writeWithoutTransaction { db in
                    for _ in 0..<passesPerRequest {
                        let (frames, copied) = try db.checkpoint(.passive)
                        shared.passes.add(1, ordering: .relaxed)
                        if copied >= frames { break }
                    }
                }
            } catch {
                // Busy (another checkpoint is running) or an I/O error: the WAL keeps its frames
                // and the hard limit still bounds it; the writer reports its own errors.
            }
        }
    }

    /// Waits for a request; false once the checkpointer is stopping.
    private static func waitForRequest(_ shared: Shared, _ thread: StoreThread) -> Bool {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        while !shared.requested && !thread.stopping { shared.condition.wait() }
        guard !thread.stopping else { return false }
        shared.requested = false
        return true
    }
}
