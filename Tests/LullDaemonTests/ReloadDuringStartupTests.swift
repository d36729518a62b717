import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `kill -HUP` while lulld is still starting — here migrating a store of 300,000 jobs — is a
/// reload that waits for the start, not the end of the daemon (SIGHUP's default action).
@Suite struct ReloadDuringStartupTests {
    @Test func aHangupDuringAMigrationIsAReloadAfterTheStart() async throws {
        let daemon = try DaemonProcess(config: "", environment: ["LULL_TEST_MIGRATION": "1"])
        defer { daemon.remove() }
        // A store of the current schema, one job copied to 300,000, for the test migration
        // (`LULL_TEST_MIGRATION`, an UPDATE of every job) to take a while.
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
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
            INSERT INTO jobs (owner, kind, state, class, spec, payload, created_at, updated_at)
            SELECT owner, kind, 'succeeded', class, spec, payload, created_at, updated_at FROM jobs, n WHERE jobs.id = 1;
            """,
            in: daemon.stateDirectory + "/lull.sqlite"
        )

        let starting = Task.detached { try daemon.start(timeout: .seconds(120)) }
        // Started (its log begun anew), then its first line, which comes before the store opens.
        var found: Int32?
        try await waitUntil("lulld to start", timeout: .seconds(30)) {
            found = Self.pid(of: daemon)
            return found != nil
        }
        let pid = try #require(found)
        try await waitUntil("lulld's first log line", timeout: .seconds(30)) { daemon.log().contains("run jobs:") }
        #expect(!daemon.log().contains("lulld ready"), "the hangups come while lulld starts")
        let hangups = (0..<5).map { _ in kill(pid, SIGHUP) }
        #expect(hangups.allSatisfy { $0 == 0 })
        let opened = ContinuousClock.now
        try await starting.value
        print("lulld reached READY \(ContinuousClock.now - opened) after the hangups")
        try await waitUntil("the reload after the start", timeout: .seconds(20)) {
            daemon.log().contains("policy reloaded")
        }
        #expect(kill(pid, 0) == 0, "lulld is still running")
    }

    /// The lulld started for this daemon's state directory.
    private static func pid(of daemon: DaemonProcess) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
            else { continue }
            let words = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if words.first?.hasSuffix("lulld") == true, words.contains(daemon.stateDirectory) { return pid }
        }
        return nil
    }
}
