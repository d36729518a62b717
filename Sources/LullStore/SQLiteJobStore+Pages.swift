import Foundation
import GRDB
import LullCore

/// The reads that answer a page of the API (`GET /v1/jobs`, `GET /v1/events`): at most the
/// limit asked for, and closed early at `StorePage.byteBudget` of stored rows.
extension SQLiteJobStore {
    public func list(_ filter: JobFilter) async throws -> StorePage<StoredJob> {
        let codec = self.codec
        return try await pool.read { db in
            var clauses: [String] = []
            var arguments: StatementArguments = []
            if let after = filter.after {
                clauses.append("id > ?")
                arguments += [after.rawValue]
            }
            if let owner = filter.owner {
                clauses.append("owner = ?")
                arguments += [Int64(owner.rawValue)]
            }
            if let state = filter.state {
                clauses.append("state = ?")
                arguments += [state.rawValue]
            }
            if let label = filter.label {
                clauses.append("label = ?")
                arguments += [label]
            }
            if let jobClass = filter.jobClass {
                clauses.append("class = ?")
                arguments += [jobClass]
            }
            let whereSQL = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
            arguments += [filter.limit]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(RowCodec.jobColumns), \(Self.jobBytes) FROM jobs \(whereSQL) ORDER BY id LIMIT ?
                    """,
                arguments: arguments
            )
            var jobs: [StoredJob] = []
            var bytes = 0
            while let row = try rows.next() {
                do {
                    jobs.append(.readable(try codec.job(from: row, in: db)))
                } catch let unreadable as UnreadableJob {
                    jobs.append(.unreadable(unreadable))
                }
                bytes += row[RowCodec.jobColumnCount] as Int? ?? 0
                if bytes >= StorePage<Job>.byteBudget, jobs.count < filter.limit {
                    return StorePage(jobs, cutShort: true)
                }
            }
            return StorePage(jobs)
        }
    }

    /// How many unreadable events one page reads past at most before it ends, cut short.
    public static let maxLeftOut = 10_000

    /// What a job row holds that can be large, in characters (bytes for the payload).
    static let jobBytes =
        "length(spec) + ifnull(length(payload), 0) + ifnull(length(result), 0) + ifnull(length(failure), 0)"

    /// Events a newer lulld wrote that this one cannot name are left out, and the page reads on
    /// past them (no `LIMIT`: the cursor steps through `seq` order lazily, by the rowid or
    /// `events_by_owner`), so a page is short only at the end of the log or its byte budget,
    /// which the rows left out count against; it also ends, cut short, once it has left out
    /// `maxLeftOut` rows. Its `readThrough` is the last row read when that was one left out.
    public func events(after: Int64, owner: OwnerID?, limit: Int) async throws -> StorePage<JobEvent> {
        let codec = self.codec
        return try await pool.read { db in
            let select = "SELECT *, ifnull(length(detail), 0) AS detail_bytes FROM events"
            let rows =
                if let owner {
                    try Row.fetchCursor(
                        db,
                        sql: "\(select) WHERE owner = ? AND seq > ? ORDER BY seq",
                        arguments: [Int64(owner.rawValue), after]
                    )
                } else {
                    try Row.fetchCursor(db, sql: "\(select) WHERE seq > ? ORDER BY seq", arguments: [after])
                }
            var events: [JobEvent] = []
            var bytes = 0
            var leftOut = 0
            var lastLeftOut: Int64?
            while events.count < limit, let row = try rows.next() {
                bytes += row["detail_bytes"] as Int
                if let event = try codec.event(from: row) {
                    events.append(event)
                    lastLeftOut = nil
                } else {
                    leftOut += 1
                    lastLeftOut = row["seq"]
                }
                if bytes >= StorePage<JobEvent>.byteBudget || leftOut >= Self.maxLeftOut, events.count < limit {
                    return StorePage(events, cutShort: true, readThrough: lastLeftOut)
                }
            }
            return StorePage(events, readThrough: lastLeftOut)
        }
    }
}
