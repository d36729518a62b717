import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport

extension DaemonProcess {
    /// A stopped daemon (`LULL_TEST_MIGRATION=1`) whose store of the current schema holds one
    /// job copied to `jobs` rows and lacks the test migration (an UPDATE of every job), so that
    /// its next start migrates for a while.
    static func needingASlowMigration(jobs: Int) async throws -> DaemonProcess {
        let daemon = try DaemonProcess(config: "", environment: ["LULL_TEST_MIGRATION": "1"])
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        _ = try await client.submit(
            JobSubmission(kind: .push, url: "http://127.0.0.1:9/a", body: "x", retry: RetrySettings(maxAttempts: 1))
        )
        await client.shutdown()
        daemon.stop()
        try StoreVersionTests.execute(
            """
            DELETE FROM grdb_migrations WHERE identifier = 'test: package upgrade';
            ALTER TABLE jobs DROP COLUMN test_upgrade;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(jobs))
            INSERT INTO jobs (owner, kind, state, class, spec, payload, created_at, updated_at)
            SELECT owner, kind, 'succeeded', class, spec, payload, created_at, updated_at FROM jobs, n WHERE jobs.id = 1;
            """,
            in: daemon.stateDirectory + "/lull.sqlite"
        )
        return daemon
    }
}
