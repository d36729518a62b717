import Foundation
import GRDB

/// The machine's own durable-write limit, measured beside the daemon: SQLite in WAL mode with
/// `synchronous = FULL` (as Lull's store), one fsync per commit, with 1 and with 100 rows per
/// commit. Rows are about the size of a job row.
enum SQLiteLimit {
    /// Writes `rows` rows in commits of `rowsPerCommit` into a fresh database in `directory`;
    /// the result counts rows as requests.
    static func measure(in directory: String, rows: Int, rowsPerCommit: Int) throws -> SubmitBenchmark.Throughput {
        let path = directory + "/sqlite-limit-\(rowsPerCommit).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(
                sql:
                    "CREATE TABLE job (id INTEGER PRIMARY KEY, spec TEXT NOT NULL, state TEXT NOT NULL, created REAL NOT NULL)"
            )
        }
        let spec = RawHTTPConnection.submitBody(0)
        let commits = rows / rowsPerCommit
        let seconds = try timed {
            for commit in 0..<commits {
                try queue.write { db in
                    let statement = try db.cachedStatement(
                        sql: "INSERT INTO job (spec, state, created) VALUES (?, 'queued', ?)"
                    )
                    for _ in 0..<rowsPerCommit {
                        try statement.execute(arguments: [spec, Double(commit)])
                    }
                }
            }
        }
        // In-process: the daemon is not involved.
        return SubmitBenchmark.Throughput(
            clients: 1,
            requests: commits * rowsPerCommit,
            seconds: seconds,
            daemonCPUSeconds: 0
        )
    }
}
