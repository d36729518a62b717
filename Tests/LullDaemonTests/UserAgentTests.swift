import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Some servers refuse a request without a `User-Agent`: every request of every kind of
/// transfer carries Lull's, unless the job's headers give their own.
@Suite struct UserAgentTests {
    static let lull = "lull/\(LullDefaults.version)"

    /// The `User-Agent` values a request carried (one, unless something sent it twice).
    static func userAgents(_ request: TestHTTPServer.Recorded) -> [String] {
        request.headers.filter { $0.0.lowercased() == "user-agent" }.map(\.1)
    }

    @Test func everyRequestOfEveryTransferSaysItIsLull() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let content = TestHTTPServer.bytes(count: 256 << 10, seed: 21)
        server.route("/file", .init(body: content, etag: "\"u1\""))
        // Cut once, so the second attempt asks for a range.
        server.route("/cut", .init(body: content, etag: "\"u2\"", faults: [.cutAfter(64 << 10)]))
        server.route("/hook", .init(uploadStatus: 200))
        server.route("/put", .init())
        server.route("/form", .init())
        // tus: the server's limits, create, a PATCH that fails, then on the next attempt HEAD and a
        // PATCH that lands.
        let size = String(content.count)
        server.route(
            "/files",
            .init(faults: [
                .status(204, headers: [("Tus-Version", "1.0.0"), ("Tus-Resumable", "1.0.0")]),
                .status(201, headers: [("Location", "/files/u1"), ("Tus-Resumable", "1.0.0")]),
            ])
        )
        server.route(
            "/files/u1",
            .init(faults: [
                .status(500), .status(200, headers: [("Upload-Offset", "0")]),
                .status(200, headers: [("Upload-Offset", size)]),
            ])
        )
        try await withDaemon(config: fastRetries) { daemon, client in
            let source = daemon.directory.appendingPathComponent("up.bin").path
            try Data(content).write(to: URL(fileURLWithPath: source))
            let destination = daemon.directory.appendingPathComponent("file.bin").path
            let submissions = [
                JobSubmission(kind: .fetch, url: server.url("/file"), destination: destination),
                // The same URL and file again: a conditional GET.
                JobSubmission(kind: .fetch, url: server.url("/file"), destination: destination),
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/cut"),
                    destination: daemon.directory.appendingPathComponent("cut.bin").path
                ),
                JobSubmission(kind: .push, url: server.url("/hook"), body: "x"),
                JobSubmission(kind: .upload, url: server.url("/put"), source: source),
                JobSubmission(kind: .upload, url: server.url("/form"), source: source, uploadProtocol: .multipart),
                JobSubmission(kind: .upload, url: server.url("/files"), source: source, uploadProtocol: .tus),
            ]
            for submission in submissions {
                let job = try await client.submit(submission)
                let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
                #expect(done.state == .succeeded, "\(submission.url): \(String(describing: done.error))")
            }
            let requests = server.requests
            let seen = Set(requests.map { "\($0.method) \($0.uri)" })
            for expected in [
                "GET /file", "GET /cut", "POST /hook", "PUT /put", "POST /form", "OPTIONS /files", "POST /files",
                "PATCH /files/u1", "HEAD /files/u1",
            ] {
                #expect(seen.contains(expected), "no \(expected) among \(seen.sorted())")
            }
            #expect(
                requests.contains { $0.uri == "/file" && $0.header("if-none-match") != nil },
                "a conditional GET was sent"
            )
            #expect(requests.contains { $0.uri == "/cut" && $0.header("range") != nil }, "a ranged GET was sent")
            for request in requests {
                #expect(
                    Self.userAgents(request) == [Self.lull],
                    "\(request.method) \(request.uri): \(Self.userAgents(request))"
                )
            }
        }
    }

    @Test func aJobsOwnUserAgentIsSentInsteadOfLulls() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/file", Array("content\n".utf8))
        server.route("/hook", .init(uploadStatus: 200))
        try await withDaemon(config: fastRetries) { daemon, client in
            let submissions = [
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/file"),
                    destination: daemon.directory.appendingPathComponent("f").path,
                    headers: ["user-agent": "mirror-bot/2"]
                ),
                JobSubmission(
                    kind: .push,
                    url: server.url("/hook"),
                    headers: ["User-Agent": "hook-client/3"],
                    body: "x"
                ),
            ]
            for submission in submissions {
                let job = try await client.submit(submission)
                #expect(try await awaitJob(job.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            }
            #expect(server.requests.first { $0.uri == "/file" }.map(Self.userAgents) == ["mirror-bot/2"])
            #expect(server.requests.first { $0.uri == "/hook" }.map(Self.userAgents) == ["hook-client/3"])
        }
    }
}
