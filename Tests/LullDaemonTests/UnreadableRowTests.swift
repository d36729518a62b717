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

    @Test func aJobWhoseRowNoLongerDecodesIsListedShownAndCancelled() async throws {
        let daemon = try DaemonProcess(config: "[limits]\nmax_concurrent = 0\n")
        defer { daemon.remove() }
        try daemon.start()
        let first = LullClient(socketPath: daemon.socketPath)
        let badRecord = try await first.submit(JobSubmission(kind: .run, url: "", label: "a", argv: ["true"]))
        let badSpec = try await first.submit(JobSubmission(kind: .run, url: "", label: "b", argv: ["true"]))
        let fine = try await first.submit(JobSubmission(kind: .run, url: "", argv: ["true"]))
        await first.shutdown()
        #expect(daemon.stop() == 0)

        try await DatabaseQueue(path: daemon.stateDirectory + "/lull.sqlite").write { db in
            try db.execute(sql: "UPDATE jobs SET failure = '{\"code\":\"x\"}' WHERE id = ?", arguments: [badRecord.id])
            try db.execute(sql: "UPDATE jobs SET spec = '{\"kind\":' WHERE id = ?", arguments: [badSpec.id])
        }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }

        // Listed in their places, with their plain columns and what is wrong.
        let listed = try await client.list().jobs
        #expect(listed.map(\.id) == [badRecord.id, badSpec.id, fine.id])
        #expect(listed.map(\.error?.code) == ["unreadable_job", "unreadable_job", nil])
        #expect(listed.map(\.label) == ["a", "b", nil])
        #expect(listed[0].error?.message.contains("failure: missing \"message\"") == true, "\(listed[0])")
        #expect(listed[1].error?.message.contains("spec: not valid JSON") == true, "\(listed[1])")
        #expect(listed[1].error?.message.contains("lullctl cancel \(badSpec.id)") == true, "\(listed[1])")

        let listing = try CommandRunner.run(DaemonProcess.binary("lullctl"), ["list", "--socket", daemon.socketPath])
        let line = listing.stdout.split(separator: "\n").first { $0.hasPrefix("\(badSpec.id) ") } ?? ""
        #expect(line.contains("(its stored row cannot be read: lullctl show \(badSpec.id))"), "\(listing.stdout)")

        let shown = try await client.job(badSpec.id)
        #expect(shown.state == .queued && shown.kind == .run && shown.error?.code == "unreadable_job")

        // Any other command is refused, saying what does apply.
        do {
            _ = try await client.pause(badSpec.id)
            Issue.record("pausing an unreadable job was accepted")
        } catch LullClientError.api(let status, let detail) {
            #expect(status == 409 && detail.code == "unreadable_job", "\(detail)")
            #expect(detail.message.contains("only a cancel applies"), "\(detail.message)")
        }

        let cancelled = try await client.cancel(badSpec.id)
        #expect(cancelled.state == .cancelled && cancelled.error?.code == "unreadable_job")
        #expect(try await client.job(badSpec.id).state == .cancelled)
        do {
            _ = try await client.cancel(badSpec.id)
            Issue.record("a second cancel was accepted")
        } catch LullClientError.api(let status, let detail) {
            #expect(status == 409 && detail.code == "invalid_state", "\(detail)")
        }
        let events = try await client.events(after: 0).events.filter { $0.jobId == badSpec.id }
        #expect(events.map(\.type) == [.submitted, .cancelled])
        #expect(daemon.log().contains("job \(badSpec.id) cancelled; its stored row cannot be read"), "\(daemon.log())")

        // Cancelled, it is out of the queue: given a slot, the daemon skips it and runs the job
        // behind it (the record-damaged job ahead takes the slot first and gives it back).
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "max_concurrent = 0", with: "max_concurrent = 1")
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        _ = try await client.reload()
        let done = try await awaitJob(fine.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
        #expect(done.state == .succeeded)
        #expect(daemon.log().contains("cannot record job \(badRecord.id)'s started"), "\(daemon.log())")
        #expect(!daemon.log().contains("cannot record job \(badSpec.id)'s"), "\(daemon.log())")
    }
}
