import Foundation
import GRDB
import LullStore
import LullTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `Tests/Fixtures/store-v4.sqlite`: a store written by lulld before the job model's refactor
/// (schema "v4: completion hooks"), holding `GoldenHistory`'s jobs. Later versions must open and
/// run it. Recorded once, on purpose, with `LULL_RECORD_STORE_FIXTURE=1` (a separate switch from
/// the goldens': re-recording it with newer code would defeat it); a newer schema gets a new file.
enum StoreFixture {
    static let file = GoldenFiles.fixtures("store-v4.sqlite")
    static let recordVariable = "LULL_RECORD_STORE_FIXTURE"

    static var recording: Bool { ProcessInfo.processInfo.environment[recordVariable] == "1" }

    static func record() async throws {
        try await withTemporaryDirectory("store-fixture") { directory in
            let path = directory + "/lull.sqlite"
            let store = try SQLiteJobStore(path: path)
            try await GoldenHistory.write(into: store)
            // Everything into the main file, so that file alone is the store.
            let queue = try DatabaseQueue(path: path)
            let busy = try await queue.writeWithoutTransaction { db in
                try Int.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            try queue.close()
            guard busy == 0 else { throw GoldenHistoryError(description: "the WAL checkpoint was busy") }
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.copyItem(atPath: path, toPath: file.path)
            withExtendedLifetime(store) {}
        }
    }

    /// Copies the fixture to `directory/lull.sqlite` (made 0700), with the modes lulld
    /// requires of its store, and returns the copy's path.
    static func copy(into directory: String) throws -> String {
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw GoldenHistoryError(
                description:
                    "no store fixture \(file.path); record it once, from the code before the change, with \(recordVariable)=1"
            )
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o700)
        let path = directory + "/lull.sqlite"
        try FileManager.default.copyItem(atPath: file.path, toPath: path)
        chmod(path, 0o600)
        return path
    }
}
