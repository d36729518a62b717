import Foundation
import GRDB
import LullCore

/// Jobs whose rows no longer decode (a manual edit, a damaged page), changed from their plain
/// columns: the one change asked of them is a cancel.
extension SQLiteJobStore {
    public func applyToUnreadable(_ update: JobUpdate) async throws -> UnreadableUpdateOutcome {
        let codec = self.codec
        return try await write { db, events in
            guard var job = try codec.unreadable(update.id, in: db, problem: "") else { return .notFound }
            guard update.from.contains(job.state) else { return .conflict(job) }
            try db.execute(
                sql: """
                    UPDATE jobs SET state = ?, updated_at = ?, retry_at = NULL,
                        hook_ran_at = CASE WHEN ? AND on_complete_unit IS NOT NULL THEN ? ELSE hook_ran_at END
                    WHERE id = ?
                    """,
                arguments: [
                    update.state.rawValue, update.time.timeIntervalSince1970, update.state.isTerminal,
                    update.time.timeIntervalSince1970, update.id.rawValue,
                ]
            )
            (job.state, job.updatedAt) = (update.state, update.time)
            events.append(
                try codec.appendEvent(
                    for: job.id,
                    owner: job.owner,
                    state: job.state,
                    type: update.event,
                    time: update.time,
                    detail: update.message.map { JobEventDetail(message: $0) },
                    into: db
                )
            )
            return .applied(job)
        }
    }
}
