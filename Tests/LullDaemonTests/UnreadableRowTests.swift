import Foundation
import GRDB
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// A job whose stored row no longer decodes (a manual edit, a damaged page) costs lulld that job,
/// not its start or its slots.
@Suite(.timeLimit(.minutes(2)))
struct UnreadableRowTests {
    @Test func aJobWhoseRowNoLongerDecodesNeitherStopsTheStartNorHoldsASlot() async throws {
        let daemon = try DaemonProcess(config: "[limits]\nmax_concurrent = 0\n")
        defer { daemon.remove() }
        try daemon.start()
        let first = LullClient(socketPath: daemon.socketPath)
        let unreadable = try await first.submit(JobSubmission(kind: .run, url: "", argv: ["true"]))
        let fine = try await first.submit(JobSubmission(kind: .run, url: "", argv: ["true"]))
        await first.shutdown()
        #expect(daemon.stop() == 0)

        // A failure record without its message, as no lulld writes one.
        try await DatabaseQueue(path: daemon.stateDirectory + "/lull.sqlite").write { db in
            try db.execute(
                sql: "UPDATE jobs SET failure = '{\"code\":\"x\"}' WHERE id = ?",
                arguments: [unreadable.id]
            )
        }
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "max_concurrent = 0", with: "max_concurrent = 1")
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        // The unreadable job comes first and takes the one slot; the next one must still run.
        let done = try await awaitJob(fine.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
        #expect(done.state == .succeeded)
        #expect(daemon.log().contains("cannot record job \(unreadable.id)'s started"), "\(daemon.log())")
    }
}
