import Foundation
import GRDB

/// A migration that exists only when `LULL_TEST_MIGRATION=1` is in lulld's environment, for the
/// Debian package's upgrade test (Tests/LullSystemdTests/PackageLifecycleTests): an upgrade must
/// keep the queued jobs across a schema migration, and the two builds that test installs share
/// the real schema. It adds a column and fills it in every row, as real migrations do. Never set
/// it elsewhere: a lulld started without it refuses a store it has migrated (StoreVersionCheck).
enum TestMigration {
    static let identifier = "test: package upgrade"

    static func register(in migrator: inout DatabaseMigrator, environment: [String: String]) {
        guard environment["LULL_TEST_MIGRATION"] == "1" else { return }
        migrator.registerMigration(identifier) { db in
            try db.execute(
                sql: """
                    ALTER TABLE jobs ADD COLUMN test_upgrade TEXT;
                    UPDATE jobs SET test_upgrade = 'migrated';
                    """
            )
        }
    }
}
