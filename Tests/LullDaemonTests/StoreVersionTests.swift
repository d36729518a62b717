import Foundation
import GRDB
import LullAPI
import LullStore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A store migrated by a newer lulld (a downgrade) is refused with both versions named, not opened.
@Suite struct StoreVersionTests {
    @Test func aMigrationThisBinaryDoesNotKnowRefusesTheStore() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.remove() }
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        chmod(daemon.stateDirectory, 0o700)
        let path = daemon.stateDirectory + "/lull.sqlite"
        do { _ = try SQLiteJobStore(path: path) }
        try Self.execute("INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')", in: path)
        do {
            _ = try SQLiteJobStore(path: path)
            Issue.record("a store from a newer lulld was opened")
        } catch let error as StoreVersionError {
            #expect(error.storeNewest == "v99: from the future")
            #expect(error.binaryNewest.hasPrefix("v"))
            let message = error.description
            #expect(message.contains("v99: from the future") && message.contains(error.binaryNewest))
            #expect(
                message.contains("Install the newer lulld again") && message.contains("move the state directory aside")
            )
        }

        // lulld refuses to start on it, with exit status 3, which the units do not restart on.
        #expect(throws: DaemonProcessError.self) { try daemon.start() }
        #expect(daemon.process?.terminationStatus == LulldExitStatus.refused.rawValue)
        #expect(daemon.log().contains("v99: from the future"), "\(daemon.log())")

        // The same store, as the migrations this binary knows left it, opens again.
        try Self.execute("DELETE FROM grdb_migrations WHERE identifier LIKE 'v99%'", in: path)
        _ = try SQLiteJobStore(path: path)
    }

    static func execute(_ sql: String, in path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }
}
