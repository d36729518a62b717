import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Synchronization
import Testing

/// The client libraries follow a job's events to the end across a real disconnect — the daemon
/// restarted mid-transfer, or the connection closed by the client — without missing or
/// repeating an event: what they delivered equals the durable log.
struct ClientResumeTests {
    static let size = 4 << 20

    /// A server whose first answer stalls after 1 MiB: the job is mid-transfer until the daemon
    /// lets go of it; the next request (with Range) completes.
    static func stallingServer() async throws -> TestHTTPServer {
        let server = try await TestHTTPServer.start()
        server.route(
            "/big",
            .init(body: TestHTTPServer.bytes(count: size), etag: "\"v1\"", faults: [.stallAfter(1 << 20)])
        )
        return server
    }

    /// The log's events for `job` after `cursor`, read page by page: the reference.
    static func loggedEvents(_ client: LullClient, job: Int64, after cursor: Int64) async throws -> [EventView] {
        var events: [EventView] = []
        var after = cursor
        for _ in 0..<1000 {
            let page = try await client.events(after: after)
            events += page.events.filter { $0.jobId == job }
            if page.events.isEmpty { break }
            after = page.lastSeq
        }
        return events
    }

    @Test func lullClientFollowsAFetchAcrossADaemonRestart() async throws {
        let server = try await Self.stallingServer()
        defer { Task { await server.stop() } }
        try await withDaemon(config: fastRetries) { daemon, client in
            let cursor = try #require(try await client.status().lastEventSeq)
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/big"),
                    destination: daemon.directory.appendingPathComponent("big").path
                )
            )
            let delivered = Mutex<[EventView]>([])
            let follower = Task {
                for try await event in client.followEvents(after: cursor) {
                    delivered.withLock { $0.append(event) }
                    if event.jobId == job.id && event.state.isTerminal { return }
                }
            }
            // Mid-transfer: bytes have arrived and the server is stalling.
            try await awaitEvent(client: client, after: cursor, "job \(job.id) has bytes") {
                $0.jobId == job.id && ($0.progress?.bytesDone ?? 0) > 0
            }
            daemon.stop()
            try daemon.start()
            try await withTimeout(.seconds(60), "the follower to see job \(job.id) end") { try await follower.value }

            let seen = delivered.withLock { $0 }.filter { $0.jobId == job.id }
            let logged = try await Self.loggedEvents(client, job: job.id, after: cursor)
            #expect(seen.map(\.seq) == logged.map(\.seq), "delivered events equal the log: none missed, none repeated")
            #expect(Set(seen.map(\.seq)).count == seen.count)
            #expect(seen.contains { $0.type == .requeued }, "the restart happened mid-stream: \(seen.map(\.type))")
            #expect(seen.last?.type == .succeeded)
            #expect(
                try await client.job(job.id).result?.sha256
                    == TestHTTPServer.sha256(TestHTTPServer.bytes(count: Self.size))
            )
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: PythonExample.python), "needs /usr/bin/python3"))
    func pythonExampleFollowsAFetchAcrossADaemonRestart() async throws {
        let server = try await Self.stallingServer()
        defer { Task { await server.stop() } }
        try await withDaemon(config: fastRetries) { daemon, client in
            let example = try PythonExample.start([
                server.url("/big"), daemon.directory.appendingPathComponent("py").path, "--socket", daemon.socketPath,
            ])
            defer { example.terminate() }
            // Restart the daemon once the job has bytes (the server stalls after 1 MiB).
            _ = try example.waitForLine(timeout: .seconds(60)) { line in
                (line["progress"] as? [String: Any])?["bytes_done"].flatMap { $0 as? Int }.map { $0 > 0 } ?? false
            }
            daemon.stop()
            try daemon.start()
            let output = try example.finish(timeout: .seconds(60))
            #expect(output.status == 0, "stderr: \(output.stderr)")
            let jobID = try #require(output.lines.compactMap { $0["submitted"] as? Int }.first)
            let seen = output.lines.compactMap { $0["seq"] as? Int }.map(Int64.init)
            let logged = try await Self.loggedEvents(client, job: Int64(jobID), after: 0)
            #expect(seen == logged.map(\.seq), "the Python client delivered exactly the log")
            #expect(output.lines.contains { $0["type"] as? String == "requeued" })
            #expect(output.lines.contains { $0["reconnecting_after"] != nil }, "it noticed the disconnect")
            #expect(output.lines.last.flatMap { ($0["final"] as? [String: Any])?["state"] as? String } == "succeeded")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: PythonExample.python), "needs /usr/bin/python3"))
    func pythonExampleResumesAfterClosingItsOwnConnection() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/small", TestHTTPServer.bytes(count: 300_000))
        try await withDaemon(config: fastRetries) { daemon, client in
            let example = try PythonExample.start([
                server.url("/small"), daemon.directory.appendingPathComponent("small").path, "--socket",
                daemon.socketPath,
                "--drop-after", "1",
            ])
            defer { example.terminate() }
            let output = try example.finish(timeout: .seconds(60))
            #expect(output.status == 0, "stderr: \(output.stderr)")
            #expect(output.lines.contains { $0["dropped_after_seq"] != nil })
            let jobID = try #require(output.lines.compactMap { $0["submitted"] as? Int }.first)
            let seen = output.lines.compactMap { $0["seq"] as? Int }.map(Int64.init)
            #expect(seen == (try await Self.loggedEvents(client, job: Int64(jobID), after: 0)).map(\.seq))
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: PythonExample.python), "needs /usr/bin/python3"))
    func pythonModuleSaysWhatToDoWhenTheDaemonIsNotRunning() throws {
        let result = try CommandRunner.run(
            PythonExample.python,
            [
                PythonExample.script, "http://127.0.0.1:9/x", "/tmp/x", "--socket", "/nonexistent/lull.sock",
            ]
        )
        #expect(result.status == 3)
        #expect(result.stderr.contains("lulld is not running"), "\(result.stderr)")
        #expect(result.stderr.contains("LULL_SOCKET"))
    }
}
