import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// A push or upload sent as POST and answered 301 or 302 goes to the new place as a POST with
/// its body. Followed as browsers follow it, as a GET without the body, the job ended
/// `succeeded` on the GET's answer with nothing delivered.
@Suite struct RedirectedBodyTests {
    @Test(arguments: [301, 302])
    func aRedirectedPushDeliversItsBodyWhereItIsSent(status: Int) async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/old", TestHTTPServer.Route(faults: [.status(status, headers: [("location", "/new")])]))
        server.route("/new", TestHTTPServer.Route(uploadStatus: 201))
        try await withDaemon { _, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .push,
                    url: server.url("/old"),
                    body: "the payload",
                    retry: RetrySettings(maxAttempts: 1)
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            let arrived = server.requests.filter { $0.uri == "/new" }
            #expect(arrived.map(\.method) == ["POST"], "\(arrived.map(\.method))")
            #expect(arrived.first.map { String(decoding: $0.body, as: UTF8.self) } == "the payload")
        }
    }

    /// An upload's file is streamed, which the HTTP client does not send twice: a redirect ends
    /// the attempt naming the status, and no body-less request goes to the new place.
    @Test func aRedirectedUploadFailsByNameRatherThanArrivingEmpty() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/old", TestHTTPServer.Route(faults: [.status(302, headers: [("location", "/new")])]))
        server.route("/new", TestHTTPServer.Route(uploadStatus: 201))
        try await withDaemon { daemon, client in
            let source = daemon.directory.appendingPathComponent("report.bin").path
            #expect(
                FileManager.default.createFile(atPath: source, contents: Data(TestHTTPServer.bytes(count: 300_000)))
            )
            let job = try await client.submit(
                JobSubmission(
                    kind: .upload,
                    url: server.url("/old"),
                    source: source,
                    method: "POST",
                    retry: RetrySettings(maxAttempts: 1)
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .failed && done.error?.code == "http_302", "\(String(describing: done.error))")
            #expect(server.requests.filter { $0.uri == "/new" }.isEmpty)
        }
    }

    /// The same against nginx's own `return 301`, which answers a POST with an HTML body of its
    /// own, as a site that moved does.
    @Test(.enabled(if: BodyLimitProxy.isAvailable, "needs nginx"))
    func aPushRedirectedByNginxArrivesWithItsBody() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/new", TestHTTPServer.Route(uploadStatus: 201))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-nginx-\(UUID().uuidString.prefix(8))"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let nginx = try BodyLimitProxy(
            directory: directory.path,
            forwardingTo: server.port,
            maxBody: "1m",
            redirects: ["/hook": (301, server.url("/new"))]
        )
        try nginx.start()
        defer { nginx.stop() }
        try await withDaemon { _, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .push,
                    url: "http://127.0.0.1:\(nginx.port)/hook",
                    body: "moved payload",
                    retry: RetrySettings(maxAttempts: 1)
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(nginx.answered() == ["POST 301"], "\(nginx.answered())")
            let arrived = server.requests.filter { $0.uri == "/new" }
            #expect(arrived.map(\.method) == ["POST"])
            #expect(arrived.first.map { String(decoding: $0.body, as: UTF8.self) } == "moved payload")
        }
    }
}
