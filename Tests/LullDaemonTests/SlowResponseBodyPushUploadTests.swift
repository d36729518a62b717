import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// A server that accepts a push or an upload and then sends its answer's body slowly is still
/// moving bytes: the attempt must not fail as idle, or the request, already applied by the
/// server, is sent a second time. The body ("stored N bytes\n") comes one byte every 0.3 s,
/// about 4 s in all, against an idle limit of 1 s.
@Suite struct SlowResponseBodyPushUploadTests {
    static let drip = TestHTTPServer.Route(faults: [.drip(bytes: 1, every: .milliseconds(300))], uploadStatus: 200)

    @Test func aPushWhoseAnswerDripsIsSentOnce() async throws {
        try await Self.push(answeredBy: Self.drip, timeouts: TimeoutSettings(idleSeconds: 1)) { done, server in
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.attempts == 1)
            #expect(done.result?.responseBody == "stored 1 bytes\n")
            #expect(server.requests.filter { $0.uri == "/hook" }.count == 1, "the push was sent again")
        }
    }

    /// Pushes "x" to `/hook` of a test server that answers as `route` says, then hands `check`
    /// the finished job and the server.
    static func push(
        answeredBy route: TestHTTPServer.Route,
        timeouts: TimeoutSettings,
        _ check: (JobView, TestHTTPServer) throws -> Void
    ) async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/hook", route)
        try await withDaemon(config: fastRetries) { _, client in
            let job = try await client.submit(
                JobSubmission(kind: .push, url: server.url("/hook"), body: "x", timeouts: timeouts)
            )
            try check(
                try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(60)),
                server
            )
        }
    }

    @Test func anUploadWhoseAnswerDripsIsSentOnce() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/put", Self.drip)
        try await withDaemon(config: fastRetries) { daemon, client in
            let source = daemon.directory.appendingPathComponent("payload").path
            try Data("payload\n".utf8).write(to: URL(fileURLWithPath: source))
            let job = try await client.submit(
                JobSubmission(
                    kind: .upload,
                    url: server.url("/put"),
                    source: source,
                    timeouts: TimeoutSettings(idleSeconds: 1)
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.attempts == 1)
            #expect(done.result?.responseBody == "stored 8 bytes\n")
            #expect(server.requests.filter { $0.uri == "/put" }.count == 1, "the file was sent again")
        }
    }
}

/// An answer whose body never ends: the status already says the push was taken, so the job
/// succeeds with the start of the body once a little more than it keeps has been read, rather
/// than holding its slot until the total timeout and sending the push again.
@Suite struct EndlessResponseBodyTests {
    @Test func aPushAnsweredWithAnEndlessBodySucceedsOnce() async throws {
        try await SlowResponseBodyPushUploadTests.push(
            answeredBy: TestHTTPServer.Route(faults: [.endlessBody], uploadStatus: 200),
            timeouts: TimeoutSettings(totalSeconds: 20)
        ) { done, server in
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.attempts == 1)
            #expect(done.result?.responseBody?.count == 64 << 10)
            #expect(server.requests.filter { $0.uri == "/hook" }.count == 1, "the push was sent again")
            #expect(server.bytesSent("/hook") < 64 << 20, "\(server.bytesSent("/hook")) bytes read")
        }
    }
}
