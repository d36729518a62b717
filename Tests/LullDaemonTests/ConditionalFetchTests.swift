import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// A 304 keeps the file at the destination, so a fetch asks conditionally only while the file
/// there is the one the same fetch left, unchanged, and of the content the job names.
@Suite struct ConditionalFetchTests {
    static let a = Array("content of a\n".utf8)
    static let b = Array("content of b\n".utf8)

    func server() async throws -> TestHTTPServer {
        let server = try await TestHTTPServer.start()
        server.route("/a", .init(body: Self.a, etag: "\"a-1\""))
        server.route("/b", .init(body: Self.b, etag: "\"b-1\""))
        return server
    }

    func fetch(
        _ path: String,
        into destination: String,
        sha256: String? = nil,
        server: TestHTTPServer,
        client: LullClient
    ) async throws -> JobView {
        let job = try await client.submit(
            JobSubmission(kind: .fetch, url: server.url(path), destination: destination, sha256: sha256)
        )
        return try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
    }

    func lastAsk(for path: String, on server: TestHTTPServer) -> String? {
        server.requests.last(where: { $0.uri == path })?.header("if-none-match")
    }

    @Test func aFileAnotherFetchPutThereIsNotKeptByA304() async throws {
        let server = try await server()
        defer { Task { await server.stop() } }
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("d").path
            _ = try await fetch("/a", into: destination, server: server, client: client)
            _ = try await fetch("/b", into: destination, server: server, client: client)
            let again = try await fetch(
                "/a",
                into: destination,
                sha256: TestHTTPServer.sha256(Self.a),
                server: server,
                client: client
            )
            #expect(again.state == .succeeded, "\(String(describing: again.error))")
            #expect(again.result?.notModified != true)
            #expect(lastAsk(for: "/a", on: server) == nil)
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: destination))) == Self.a)
        }
    }

    /// The same against a file server Lull did not write: nginx's own `ETag`s and `304`s.
    @Test(.enabled(if: BodyLimitProxy.isAvailable, "needs nginx"))
    func againstNginxOnlyTheFileTheFetchLeftIsKept() async throws {
        try await withDaemon(config: fastRetries) { daemon, client in
            let www = daemon.directory.appendingPathComponent("www")
            try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
            try Data(Self.a).write(to: www.appendingPathComponent("a"))
            try Data(Self.b).write(to: www.appendingPathComponent("b"))
            let nginx = try NginxFileServer(root: daemon.directory.appendingPathComponent("nginx"), www: www)
            try nginx.start()
            defer { nginx.stop() }
            let destination = daemon.directory.appendingPathComponent("d").path
            func fetch(_ path: String) async throws -> JobView {
                let job = try await client.submit(
                    JobSubmission(kind: .fetch, url: nginx.url(path), destination: destination)
                )
                return try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            }
            let first = try await fetch("/a")
            #expect(first.result?.httpStatus == 200 && first.result?.etag != nil, "\(String(describing: first.result))")
            let kept = try await fetch("/a")
            #expect(
                kept.result?.notModified == true && kept.result?.httpStatus == 304,
                "nginx's 304 keeps the same file"
            )
            _ = try await fetch("/b")
            let again = try await fetch("/a")
            #expect(
                again.result?.httpStatus == 200,
                "another fetch's file is not kept: \(String(describing: again.result))"
            )
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: destination))) == Self.a)
        }
    }

    @Test func aFileEditedSinceIsFetchedAgain() async throws {
        let server = try await server()
        defer { Task { await server.stop() } }
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("d").path
            _ = try await fetch("/a", into: destination, server: server, client: client)
            let handle = try #require(FileHandle(forWritingAtPath: destination))
            try handle.write(contentsOf: Array("edited".utf8))
            try handle.close()
            let again = try await fetch("/a", into: destination, server: server, client: client)
            #expect(again.result?.notModified != true)
            #expect(lastAsk(for: "/a", on: server) == nil)
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: destination))) == Self.a)
        }
    }

    @Test func theKeptFileMustHaveTheContentAJobNames() async throws {
        let server = try await server()
        defer { Task { await server.stop() } }
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("d").path
            let sha = TestHTTPServer.sha256(Self.a)
            _ = try await fetch("/a", into: destination, server: server, client: client)
            // Unchanged and of the content named: kept, and the result says which content.
            let kept = try await fetch("/a", into: destination, sha256: sha, server: server, client: client)
            #expect(kept.result?.notModified == true)
            #expect(kept.result?.sha256 == sha)
            #expect(lastAsk(for: "/a", on: server) == "\"a-1\"")
            // Another content named: asked for in full, and found not to be it.
            let other = try await fetch(
                "/a",
                into: destination,
                sha256: String(repeating: "0", count: 64),
                server: server,
                client: client
            )
            #expect(other.error?.code == "checksum_mismatch")
            #expect(lastAsk(for: "/a", on: server) == nil)
        }
    }
}
