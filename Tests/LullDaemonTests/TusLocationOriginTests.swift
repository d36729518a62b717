import AsyncHTTPClient
import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

@testable import LullTransfer

/// The job's credentials go only to the origin its URL names, also when a tus server answers
/// the creation with a `Location` elsewhere.
@Suite(
    .serialized,
    .enabled(if: TusServerProcess.isAvailable, "needs python3 with tuspyserver and uvicorn (make test installs them)")
)
struct TusLocationOriginTests {
    /// tuspyserver behind nginx, which rewrites its `Location` to another origin (`localhost` on
    /// a second port it also serves): the creation carries `Authorization` and `Cookie`; the
    /// `HEAD`s and `PATCH`es to the other origin carry neither, and the upload completes byte for
    /// byte.
    @Test(.enabled(if: BodyLimitProxy.isAvailable, "needs nginx (make test installs it)"))
    func credentialsDoNotFollowALocationToAnotherOrigin() async throws {
        try await TusChunkingTests.behindNginx(maxBody: "8m", otherOrigin: true) { daemon, client, tus, proxy in
            let other = try #require(proxy.otherPort)

            let content = TestHTTPServer.bytes(count: 600_000, seed: 71)
            let source = daemon.directory.appendingPathComponent("report.bin").path
            try Data(content).write(to: URL(fileURLWithPath: source))
            let job = try await client.submit(
                JobSubmission(
                    kind: .upload,
                    url: "http://127.0.0.1:\(proxy.port)/files/",
                    source: source,
                    headers: ["Authorization": "Bearer tus-secret", "Cookie": "session=c00kie"],
                    uploadProtocol: .tus,
                    retry: RetrySettings(maxAttempts: 1),
                    chunkBytes: 256 << 10
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(60))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            let uploadURL = try #require(done.result?.uploadURL)
            #expect(uploadURL.hasPrefix("http://localhost:\(other)/files/"), "\(uploadURL)")
            let stored = try Data(contentsOf: URL(fileURLWithPath: tus.storedFile(for: uploadURL)))
            #expect(TestHTTPServer.sha256([UInt8](stored)) == TestHTTPServer.sha256(content))

            let seen = proxy.credentialsSeen()
            let creation = seen.filter { $0.hasPrefix("\(proxy.port) POST") }
            #expect(creation == ["\(proxy.port) POST authorization=Bearer tus-secret cookie=session=c00kie"], "\(seen)")
            let elsewhere = seen.filter { $0.hasPrefix("\(other) ") }
            #expect(elsewhere.filter { $0.contains(" PATCH ") }.count == 3, "\(seen)")
            #expect(
                elsewhere.allSatisfy { $0.hasSuffix("authorization=- cookie=-") },
                "the other origin got the credentials: \(elsewhere)"
            )
        }
    }

    /// An origin is the scheme, host and port, a missing port being the scheme's own.
    @Test func whatCountsAsTheSameOrigin() {
        #expect(HTTPClientRequest.sameOrigin("https://Files.example/a", "https://files.example:443/b"))
        #expect(HTTPClientRequest.sameOrigin("http://files.example/a", "HTTP://files.example:80/"))
        #expect(!HTTPClientRequest.sameOrigin("http://files.example/a", "https://files.example/a"))
        #expect(!HTTPClientRequest.sameOrigin("https://files.example/a", "https://files.example:8443/a"))
        #expect(!HTTPClientRequest.sameOrigin("https://files.example/a", "https://cdn.files.example/a"))
        #expect(!HTTPClientRequest.sameOrigin("/relative", "https://files.example/a"))
    }
}
