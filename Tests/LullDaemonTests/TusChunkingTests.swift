import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

@testable import LullDaemon

/// tus uploads against servers that limit a request's size (nginx's `client_max_body_size` in
/// front of tuspyserver) or a whole upload's (`Tus-Max-Size`).
@Suite(
    .serialized,
    .enabled(if: TusServerProcess.isAvailable, "needs python3 with tuspyserver and uvicorn (make test installs them)")
)
struct TusChunkingTests {
    static let script = TusInteropTests.script

    /// A daemon, and tuspyserver behind nginx taking request bodies up to `maxBody` (and with
    /// `BodyLimitProxy`'s other options), for `body`.
    static func behindNginx(
        maxBody: String,
        otherOrigin: Bool = false,
        hidesPatchOffset: Bool = false,
        _ body: (DaemonProcess, LullClient, TusServerProcess, BodyLimitProxy) async throws -> Void
    ) async throws {
        try await withDaemon(config: fastRetries) { daemon, client in
            let tus = try TusServerProcess(
                script: Self.script,
                filesDirectory: daemon.directory.appendingPathComponent("tus").path
            )
            defer { tus.kill() }
            try tus.start()
            let proxy = try BodyLimitProxy(
                directory: daemon.directory.appendingPathComponent("nginx").path,
                forwardingTo: tus.port,
                maxBody: maxBody,
                otherOrigin: otherOrigin,
                hidesPatchOffset: hidesPatchOffset
            )
            defer { proxy.stop() }
            try proxy.start()
            try await body(daemon, client, tus, proxy)
        }
    }

    /// Uploads `content` with tus through `proxy` in one attempt at most, and checks that the
    /// server stored it byte for byte. Returns the finished job.
    private static func upload(
        _ content: [UInt8],
        chunkBytes: Int64? = nil,
        through proxy: BodyLimitProxy,
        to tus: TusServerProcess,
        _ daemon: DaemonProcess,
        _ client: LullClient
    ) async throws -> JobView {
        let source = daemon.directory.appendingPathComponent("upload-\(content.count).bin").path
        try Data(content).write(to: URL(fileURLWithPath: source))
        let job = try await client.submit(
            JobSubmission(
                kind: .upload,
                url: "http://127.0.0.1:\(proxy.port)/files",
                source: source,
                uploadProtocol: .tus,
                retry: RetrySettings(maxAttempts: 1),
                chunkBytes: chunkBytes
            )
        )
        let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(60))
        #expect(done.state == .succeeded, "\(String(describing: done.error))")
        let stored = try Data(
            contentsOf: URL(fileURLWithPath: tus.storedFile(for: try #require(done.result?.uploadURL)))
        )
        #expect(TestHTTPServer.sha256([UInt8](stored)) == TestHTTPServer.sha256(content))
        return done
    }

    /// 5 MiB through a proxy that refuses bodies over 1 MiB: the first PATCH (the whole file,
    /// under the default chunk of 64 MiB) is refused with 413, the chunk halves until nginx takes
    /// it, and the upload goes on from the server's offset in one attempt. The server's file is the
    /// source, byte for byte.
    @Test(.enabled(if: BodyLimitProxy.isAvailable, "needs nginx (make test installs it)"))
    func a5MiBUploadPassesA1MiBRequestLimit() async throws {
        let content = TestHTTPServer.bytes(count: 5 << 20, seed: 51)
        try await Self.behindNginx(maxBody: "1m") { daemon, client, tus, proxy in
            let done = try await Self.upload(content, through: proxy, to: tus, daemon, client)
            #expect(done.attempts == 1)

            let answered = proxy.answered()
            let refused = answered.filter { $0 == "PATCH 413" }.count
            let accepted = answered.filter { $0.hasPrefix("PATCH 2") }.count
            print("tus through a 1 MiB limit: \(refused) PATCHes refused with 413, \(accepted) accepted")
            // 5, 2.5 and 1.25 MiB refused; then eight chunks of 640 KiB, kept for the rest of the attempt.
            #expect(refused == 3)
            #expect(accepted == 8)
            // No report counts past the file. Live progress counts the bytes of a PATCH as they are
            // sent, so a report that falls while a refused PATCH is being sent (here the whole
            // 5 MiB, into loopback buffers before nginx's 413) is followed by lower ones from the
            // server's offset: whether one falls there is timing, so the order of the reports is not
            // asserted.
            let events = try await client.events(after: 0).events.filter { $0.jobId == done.id && $0.type == .progress }
            let reported = events.compactMap(\.progress?.bytesDone)
            #expect(reported.allSatisfy { $0 <= 5 << 20 }, "\(reported)")
        }
    }

    /// A job's own `chunk_bytes` sets the size of each PATCH: 256 KiB chunks of 1 MiB are four
    /// requests, each checked by the server against its offset.
    @Test(.enabled(if: BodyLimitProxy.isAvailable, "needs nginx (make test installs it)"))
    func aJobsChunkBytesSplitsTheUpload() async throws {
        let content = TestHTTPServer.bytes(count: 1 << 20, seed: 52)
        // Through nginx, whose log counts the PATCHes (its limit is no constraint here).
        try await Self.behindNginx(maxBody: "8m") { daemon, client, tus, proxy in
            let done = try await Self.upload(content, chunkBytes: 256 << 10, through: proxy, to: tus, daemon, client)
            #expect(done.chunkBytes == 256 << 10)
            #expect(proxy.answered().filter { $0.hasPrefix("PATCH 2") }.count == 4, "\(proxy.answered())")
        }
    }

    /// A proxy drops `Upload-Offset` from the answers to `PATCH`: how much the server stored is
    /// then asked with a `HEAD` after each one (it used to be assumed: all of it), and the
    /// upload completes byte for byte.
    @Test(.enabled(if: BodyLimitProxy.isAvailable, "needs nginx (make test installs it)"))
    func aPatchAnsweredWithoutItsOffsetIsCheckedWithHead() async throws {
        let content = TestHTTPServer.bytes(count: 1 << 20, seed: 54)
        try await Self.behindNginx(maxBody: "8m", hidesPatchOffset: true) { daemon, client, tus, proxy in
            _ = try await Self.upload(content, chunkBytes: 256 << 10, through: proxy, to: tus, daemon, client)
            let answered = proxy.answered()
            #expect(answered.filter { $0.hasPrefix("PATCH 2") }.count == 4, "\(answered)")
            // One HEAD after each PATCH (the first attempt creates the upload and asks no HEAD).
            #expect(answered.filter { $0.hasPrefix("HEAD 2") }.count == 4, "\(answered)")
        }
    }

    /// A file larger than the server's Tus-Max-Size fails at once, for good, naming the limit;
    /// nothing is created on the server.
    @Test func aFileOverTusMaxSizeFailsAtOnceNamingTheLimit() async throws {
        try await withDaemon(config: fastRetries) { daemon, client in
            let files = daemon.directory.appendingPathComponent("tus").path
            let tus = try TusServerProcess(script: Self.script, filesDirectory: files, maxSize: 1 << 20)
            defer { tus.kill() }
            try tus.start()
            let source = daemon.directory.appendingPathComponent("two.bin").path
            try Data(TestHTTPServer.bytes(count: 2 << 20, seed: 53)).write(to: URL(fileURLWithPath: source))
            // tuspyserver answers OPTIONS at its collection's URL with the slash.
            let job = try await client.submit(
                JobSubmission(kind: .upload, url: tus.endpoint + "/", source: source, uploadProtocol: .tus)
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
            #expect(done.state == .failed)
            #expect(done.attempts == 1)
            #expect(done.error?.code == "tus_too_large")
            #expect(done.error?.retryable == false)
            #expect(done.error?.message.contains("1048576") == true, "\(done.error?.message ?? "")")
            #expect(try FileManager.default.contentsOfDirectory(atPath: files).isEmpty)
        }
    }

    /// `[transfers] tus_chunk_bytes` sets the default, in the same range as a job's.
    @Test func theConfigKeySetsTheDefaultChunk() throws {
        #expect(
            try ConfigLoader.parse("[transfers]\ntus_chunk_bytes = 1048576\n", file: "t.toml").transfers.tusChunkBytes
                == 1 << 20
        )
        do {
            _ = try ConfigLoader.parse("[transfers]\ntus_chunk_bytes = 1000\n", file: "t.toml")
            Issue.record("tus_chunk_bytes = 1000 was accepted")
        } catch {
            #expect(
                error.description.contains(
                    "t.toml:2: transfers.tus_chunk_bytes: 1000 is out of range 65536...1099511627776"
                ),
                "\(error)"
            )
        }
    }

    /// chunk_bytes is checked at submission: its range, and only with tus.
    @Test func chunkBytesIsValidatedNamingTheField() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let source = daemon.directory.appendingPathComponent("s.bin").path
            try Data([1]).write(to: URL(fileURLWithPath: source))
            for (submission, words) in [
                (
                    JobSubmission(
                        kind: .upload,
                        url: "http://127.0.0.1:9/f",
                        source: source,
                        uploadProtocol: .tus,
                        chunkBytes: 1000
                    ), "from 65536"
                ),
                (
                    JobSubmission(kind: .upload, url: "http://127.0.0.1:9/f", source: source, chunkBytes: 1 << 20),
                    "only to protocol \"tus\""
                ),
                (
                    JobSubmission(
                        kind: .fetch,
                        url: "http://127.0.0.1:9/f",
                        destination: source + ".d",
                        chunkBytes: 1 << 20
                    ), "does not apply"
                ),
            ] {
                do {
                    _ = try await client.submit(submission)
                    Issue.record("accepted \(submission)")
                } catch LullClientError.api(let status, let detail) {
                    #expect(status == 400)
                    #expect(detail.field == "chunk_bytes")
                    #expect(detail.message.contains(words), "\(detail.message)")
                }
            }
        }
    }
}
