import Foundation
import GRDB
import LullCore

/// The job store on SQLite in WAL mode with `synchronous = FULL`: a write returns only once its
/// transaction is on disk. Reads run concurrently on the pool's readers.
public final class SQLiteJobStore: JobStore {
    let pool: DatabasePool
    private let path: String
    private let committer: GroupCommitter
    private let checkpointer: WALCheckpointer
    let codec = RowCodec()
    /// Store files an earlier version had left readable by others, now 0600 (for the start-up log).
    public let narrowedFiles: [String]

    /// Opens (creating if needed) the store at `path` and runs pending migrations.
    /// `didCommit` receives the events of each commit, in sequence order, right after it is durable.
    /// `checkpointThreshold` is the WAL size, in pages, at which a checkpoint starts on the
    /// checkpointer's thread (see `WALCheckpointer`); 1,000 is SQLite's own default.
    public init(
        path: String,
        checkpointThreshold: Int = 1_000,
        migrating: StoreMigrationObserver? = nil,
        didCommit: @escaping @Sendable ([JobEvent]) -> Void = { _ in }
    ) throws {
        var configuration = Configuration()
        configuration.label = "lull.store"
        configuration.maximumReaderCount = 4
        // GRDB's default, userInitiated, makes libdispatch lower its threads' nice value, which an
        // unprivileged daemon may not do (and a background daemon should not).
        configuration.qos = .default
        self.path = path
        narrowedFiles = try PrivateStoreFiles.prepare(databasePath: path)
        pool = try DatabasePool(path: path, configuration: configuration)
        // Set here, not in `prepareDatabase`: the pool switches its writer to WAL after that hook
        // and sets `synchronous = NORMAL` as it does, which would leave commits unsynced.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let migrator = StoreSchema.migrator
        try StoreVersionCheck.refuseNewer(pool, migrator: migrator, path: path)
        let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
        let pending = applied.symmetricDifference(migrator.migrations)
        // A new store is made, not migrated: quick, and nothing to announce.
        if let migrating, !applied.isEmpty, !pending.isEmpty {
            migrating.began(migrator.migrations.filter(pending.contains))
            let database = pool
            try MigrationProgress.observing(database, tick: migrating.tick) { try migrator.migrate(database) }
            migrating.ended()
        } else {
            try migrator.migrate(pool)
        }
        try Self.numberPastUnsyncedEventsUnlessClosedCleanly(pool)
        checkpointer = WALCheckpointer(path: path, threshold: checkpointThreshold)
        committer = GroupCommitter(writer: pool, checkpointer: checkpointer, didCommit: didCommit)
    }

    /// `PRAGMA user_version` says whether the last process closed the store cleanly: 1 once
    /// `closeCleanly()` ran, 0 from every open on. (Not the WAL left behind: any tool that opens
    /// the database after a crash, an admin's `sqlite3` say, checkpoints and deletes it.)
    static let closedCleanly = 1

    /// Unsynced reports (`GroupCommitter`) went to event followers before they reached the disk,
    /// and a power cut may have taken them from the log: the numbers followers saw would then be
    /// given again, and a follower resuming after one of them would skip the new events. After an
    /// unclean stop the numbering therefore goes on past any that can have been lost.
    private static func numberPastUnsyncedEventsUnlessClosedCleanly(_ pool: DatabasePool) throws {
        let gap = GroupCommitter.unsyncedEventLimit
        try pool.write { db in
            let clean = try Int.fetchOne(db, sql: "PRAGMA user_version") == closedCleanly
            try db.execute(sql: "PRAGMA user_version = 0")
            guard !clean else { return }
            // A store that never numbered an event has none a follower could have seen.
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'events'", arguments: [gap])
        }
    }

    /// For a clean stop, once nothing writes any more: records it, so the next start keeps the
    /// numbering as it is, then moves the log into the database file and empties it. False when
    /// either did not happen: without the mark the next start takes the stop for unclean, which
    /// costs only a gap in the event numbers; a log a reader held on to is checkpointed later.
    @discardableResult
    public func closeCleanly() async -> Bool {
        do {
            // The mark first, synced: a checkpoint a reader holds up leaves the WAL, not the mark.
            return try await pool.writeWithoutTransaction { db -> Bool in
                try db.execute(sql: "PRAGMA user_version = \(Self.closedCleanly)")
                let busy = try Int.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                return busy == 0
            }
        } catch {
            return false
        }
    }

    /// The writer connection's `PRAGMA synchronous` level: 2 (FULL) means every commit is synced
    /// to disk before it returns.
    public var synchronousLevel: Int {
        get throws { try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 } }
    }

    /// How many transactions have been committed through the group committer (for tests and status).
    public var commitCount: Int { committer.commits }

    /// How many of them were reports committed without waiting for the disk (for tests).
    public var unsyncedCommitCount: Int { committer.unsyncedCommits }

    /// Checkpoints so far: passes on the checkpointer's thread, and those the writer had to run
    /// itself because the WAL reached the checkpointer's hard limit (for tests and benchmarks).
    public var checkpointCounts: (background: Int, onWriter: Int) {
        (checkpointer.passes, checkpointer.writerCheckpoints)
    }

    public func insert(_ jobs: [NewJob]) async throws -> [Job] {
        let codec = self.codec
        // Encoded before the commit, so the writer thread only runs SQL.
        let rows = try jobs.map(JobRow.init)
        return try await write { db, events in
            try rows.map { row in
                let job = try codec.insert(row, into: db)
                events.append(
                    try codec.appendEvent(
                        for: job,
                        type: .submitted,
                        time: row.new.createdAt,
                        detail: nil,
                        into: db
                    )
                )
                return job
            }
        }
    }

    public func apply(
        _ update: JobUpdate,
        creating successor: NewJob?
    ) async throws -> (JobUpdateOutcome, successor: Job?) {
        let codec = self.codec
        let successorRow = try successor.map(JobRow.init)
        return try await write(synced: !(update.isReport && successor == nil)) { db, events in
            let outcome = try Self.apply(update, codec: codec, db: db, events: &events)
            guard case .applied = outcome, let successorRow else { return (outcome, nil) }
            let created = try codec.insert(successorRow, into: db)
            events.append(
                try codec.appendEvent(
                    for: created,
                    type: .submitted,
                    time: successorRow.new.createdAt,
                    detail: nil,
                    into: db
                )
            )
            return (outcome, created)
        }
    }

    private static func apply(
        _ update: JobUpdate,
        codec: RowCodec,
        db: Database,
        events: inout [JobEvent]
    ) throws -> JobUpdateOutcome {
        guard var job = try codec.fetchJob(update.id, from: db) else { return .notFound }
        guard update.from.contains(job.state) else { return .conflict(job) }
        job.state = update.state
        job.updatedAt = update.time
        if update.countsAsAttempt { job.attempts += 1 }
        if update.interruptsAttempt { job.attempts = max(0, job.attempts - 1) }
        if let stop = update.stop {
            job.stops += 1
            job.lastStop = stop
        }
        if let progress = update.progress { job.progress = progress }
        if let result = update.result { job.result = result }
        if let failure = update.failure { job.failure = failure }
        // A success leaves no stale error from an earlier attempt behind.
        if job.state == .succeeded { job.failure = nil }
        if let resume = update.resume { job.resume = resume }
        job.retryAt = update.retryAt
        try codec.save(job, into: db)
        if job.state == .succeeded { try codec.saveValidators(for: job, into: db) }
        guard !update.silent else { return .applied(job) }
        let detail = JobEventDetail(
            progress: update.progress,
            result: update.result,
            failure: update.failure,
            attempt: update.countsAsAttempt ? job.attempts : nil,
            message: update.message,
            retryAt: update.retryAt,
            reason: update.stop?.rawValue,
            usage: update.usage
        )
        events.append(
            try codec.appendEvent(
                for: job,
                type: update.event,
                time: update.time,
                detail: detail == JobEventDetail() ? nil : detail,
                into: db
            )
        )
        return .applied(job)
    }

    /// A write through the group committer; a full disk becomes `StoreFullError`, which the API
    /// can explain, instead of an SQLite code.
    func write<T: Sendable>(
        synced: Bool = true,
        _ work: @escaping @Sendable (Database, inout [JobEvent]) throws -> T
    ) async throws -> T {
        do {
            return try await committer.perform(synced: synced, work)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw StoreFullError(path: path)
        }
    }

    public func job(_ id: JobID) async throws -> Job? {
        let codec = self.codec
        return try await pool.read { db in try codec.fetchJob(id, from: db) }
    }

    public func countsByOwner(in states: Set<JobState>) async throws -> [OwnerID: Int] {
        try await pool.read { db in
            var counts: [OwnerID: Int] = [:]
            let list = states.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
            let sql = "SELECT owner, COUNT(*) AS n FROM jobs WHERE state IN (\(list)) GROUP BY owner"
            for row in try Row.fetchAll(db, sql: sql) {
                counts[OwnerID(UInt32(truncatingIfNeeded: row["owner"] as Int64))] = row["n"]
            }
            return counts
        }
    }

    public func countsByClassAndState() async throws -> [JobCountKey: Int] {
        try await pool.read { db in
            var counts: [JobCountKey: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT class, state, n FROM job_counts WHERE n > 0") {
                if let state = JobState(rawValue: row["state"]) {
                    counts[JobCountKey(jobClass: row["class"], state: state)] = row["n"]
                }
            }
            return counts
        }
    }

    public func count(in state: JobState) async throws -> Int {
        // The counts the triggers keep, not a pass over every job ever kept.
        try await pool.read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COALESCE(SUM(n), 0) FROM job_counts WHERE state = ?",
                arguments: [state.rawValue]
            )
                ?? 0
        }
    }

    public func countsByState(owner: OwnerID?) async throws -> [JobState: Int] {
        try await pool.read { db in
            var counts: [JobState: Int] = [:]
            let rows =
                if let owner {
                    try Row.fetchAll(
                        db,
                        sql: "SELECT state, COUNT(*) AS n FROM jobs WHERE owner = ? GROUP BY state",
                        arguments: [Int64(owner.rawValue)]
                    )
                } else {
                    try Row.fetchAll(
                        db,
                        sql: "SELECT state, SUM(n) AS n FROM job_counts GROUP BY state HAVING SUM(n) > 0"
                    )
                }
            for row in rows {
                if let state = JobState(rawValue: row["state"]) { counts[state] = row["n"] }
            }
            return counts
        }
    }

    /// The highest event sequence number ever given, 0 before the first event. Read from
    /// `sqlite_sequence`, not `MAX(seq)`: the retention sweep may have deleted the newest events.
    public func latestEventSeq() async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'events'") ?? 0
        }
    }

    public func requeueInterrupted(at time: Date) async throws -> [JobID] {
        let codec = self.codec
        // From the id and owner columns alone: decoding whole rows here made one unreadable row
        // (a manual edit, a damaged page) fail every start.
        return try await write { db, events in
            let rows = try Row.fetchAll(db, sql: "SELECT id, owner FROM jobs WHERE state = 'running' ORDER BY id")
            let requeue = try db.cachedStatement(sql: "UPDATE jobs SET state = 'queued', updated_at = ? WHERE id = ?")
            var ids: [JobID] = []
            for row in rows {
                let id = JobID(row[0] as Int64)
                // Unlike a clean stop (JobUpdate.interruptsAttempt), a crash keeps the attempt: a job
                // that brings the daemon down must not restart it for ever within one attempt.
                try requeue.execute(arguments: [time.timeIntervalSince1970, id.rawValue])
                events.append(
                    try codec.appendEvent(
                        for: id,
                        owner: OwnerID(UInt32(truncatingIfNeeded: row[1] as Int64)),
                        state: .queued,
                        type: .requeued,
                        time: time,
                        detail: JobEventDetail(message: "the daemon stopped while this job was running"),
                        into: db
                    )
                )
                ids.append(id)
            }
            return ids
        }
    }

    public func queuedJobs(after: JobID?, limit: Int) async throws -> [QueuedJob] {
        let codec = self.codec
        return try await pool.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql:
                    "SELECT \(RowCodec.queuedJobColumns) FROM jobs WHERE state = 'queued' AND id > ? ORDER BY id LIMIT ?",
                arguments: [after?.rawValue ?? 0, limit]
            )
            var jobs: [QueuedJob] = []
            jobs.reserveCapacity(limit)
            while let row = try rows.next() { jobs.append(codec.queuedJob(from: row)) }
            return jobs
        }
    }

    public func fetchValidators(owner: OwnerID, url: String, destination: String) async throws -> FetchValidators? {
        try await pool.read { db in
            // Cached: every fetch asks, and compiling the statement (GRDB's authorizer included)
            // cost more than running it.
            let statement = try db.cachedStatement(
                sql: """
                    SELECT etag, last_modified, file, sha256 FROM fetch_validators
                    WHERE owner = ? AND url = ? AND destination = ?
                    """
            )
            return try Row.fetchOne(statement, arguments: [Int64(owner.rawValue), url, destination])
                .map { FetchValidators(etag: $0[0], lastModified: $0[1], file: $0[2], sha256: $0[3]) }
        }
    }

    public func pendingCompletionHooks() async throws -> [StoredJob] {
        let codec = self.codec
        return try await pool.read { db in
            try Row.fetchAll(db, sql: Self.pendingHooksSQL).map { row in
                do { return .readable(try codec.job(from: row, in: db)) } catch let unreadable as UnreadableJob {
                    return .unreadable(unreadable)
                }
            }
        }
    }

    /// Named, since the store keeps no statistics for the planner: left to choose, it read every
    /// ended job through `jobs_by_state` at each start.
    static let pendingHooksSQL = """
        SELECT \(RowCodec.jobColumns) FROM jobs INDEXED BY jobs_pending_hooks
        WHERE on_complete_unit IS NOT NULL AND hook_ran_at IS NULL
            AND state IN ('succeeded', 'failed', 'cancelled', 'expired')
        ORDER BY id
        """

    public func completionHookRan(_ id: JobID, at time: Date) async throws {
        try await write { db, _ in
            try db.execute(
                sql: "UPDATE jobs SET hook_ran_at = ? WHERE id = ?",
                arguments: [time.timeIntervalSince1970, id.rawValue]
            )
        }
    }

    /// Runs SQLite's own consistency check; "ok" when the file is sound.
    public func integrityCheck() async throws -> String {
        try await pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "no answer" }
    }
}
