import Foundation
import LullTestSupport
import Testing

/// A schema migration over a large store can outlast the unit's `TimeoutStartSec=`; killed
/// mid-migration, lulld would roll it back and start it again at every restart. While it
/// migrates, lulld says so and asks the service manager for more time (`EXTEND_TIMEOUT_USEC`)
/// for as long as SQLite shows the migration working.
@Suite struct MigrationTimeoutTests {
    @Test func aMigrationAsksForMoreTimeWhileItWorks() async throws {
        let daemon = try await DaemonProcess.needingASlowMigration(jobs: 300_000)
        defer { daemon.remove() }
        try daemon.start(timeout: .seconds(120))
        let messages = daemon.notifications
        let began = try #require(
            messages.firstIndex { $0.contains("STATUS=migrating the store (1 steps)") },
            "\(messages)"
        )
        let ended = try #require(messages.firstIndex { $0.contains("STATUS=store migrated") }, "\(messages)")
        let extensions = messages[began..<ended].filter { $0.hasPrefix("EXTEND_TIMEOUT_USEC=") }
        #expect(extensions.first == "EXTEND_TIMEOUT_USEC=15000000", "\(messages)")
        let log = daemon.log()
        #expect(log.contains("migrating the store: test: package upgrade"))
        #expect(Self.ticks(in: log) > 0, "SQLite's progress handler ticked during the migration")
    }

    /// The `ticks=N` of the log's "store migrated" line; 0 without one.
    private static func ticks(in log: String) -> Int {
        guard let line = log.split(separator: "\n").first(where: { $0.contains("store migrated") }),
            let range = line.firstRange(of: "ticks=")
        else { return 0 }
        return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }
}
