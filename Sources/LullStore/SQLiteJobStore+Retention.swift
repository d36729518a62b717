import Foundation
import GRDB
import LullCore

/// The retention sweep's reads and deletes (`FinishedJobStore`).
extension SQLiteJobStore: FinishedJobStore {
    /// Jobs that may be forgotten: ended before the cutoff (the first argument), with no
    /// completion hook still to run, and not the newest job. `jobs.id` is a plain rowid, which
    /// SQLite numbers from the highest id present: keeping the newest row keeps ids from ever
    /// being given twice. The state term is the `jobs_ended` index's own, so that index can serve it.
    private static let ended = """
        state IN ('succeeded', 'failed', 'cancelled', 'expired') AND updated_at < ?
            AND (on_complete_unit IS NULL OR hook_ran_at IS NOT NULL)
            AND id < (SELECT MAX(id) FROM jobs)
        """

    /// Arguments: the cutoff, the limit. Left to itself the planner takes `jobs_by_state` for
    /// the state and id terms, which visits every ended job ever kept.
    static let finishedJobsSQL =
        "SELECT id, kind FROM jobs INDEXED BY jobs_ended WHERE \(ended) ORDER BY updated_at LIMIT ?"

    public func finishedJobs(endedBefore cutoff: Date, limit: Int) async throws -> [FinishedJob] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: Self.finishedJobsSQL,
                arguments: [cutoff.timeIntervalSince1970, limit]
            ).compactMap { row in
                JobKind(rawValue: row[1]).map { FinishedJob(id: JobID(row[0] as Int64), kind: $0) }
            }
        }
    }

    public func removeFinished(_ ids: [JobID], endedBefore cutoff: Date) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let arguments = [cutoff.timeIntervalSince1970] + StatementArguments(ids.map(\.rawValue))
        let chosen = "\(Self.ended) AND id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))"
        return try await write { db, _ in
            try db.execute(
                sql: "DELETE FROM events WHERE job_id IN (SELECT id FROM jobs WHERE \(chosen))",
                arguments: arguments
            )
            try db.execute(sql: "DELETE FROM jobs WHERE \(chosen)", arguments: arguments)
            return db.changesCount
        }
    }

    public func forgetFetchValidators(storedBefore cutoff: Date) async throws -> Int {
        try await write { db, _ in
            try db.execute(
                sql: "DELETE FROM fetch_validators WHERE updated_at < ?",
                arguments: [cutoff.timeIntervalSince1970]
            )
            return db.changesCount
        }
    }
}
