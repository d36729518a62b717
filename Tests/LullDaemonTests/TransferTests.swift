import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// The offset a checkpoint event says a transfer can resume from ("resumable from byte N"), else 0.
func resumableOffset(_ event: EventView) -> Int {
    guard let message = event.message, message.hasPrefix("resumable from byte ") else { return 0 }
    return Int(message.dropFirst("resumable from byte ".count)) ?? 0
}

@Suite(.serialized) struct FetchResumeTests {
    static let size = 256 << 20

    /// A 256 MiB fetch cut three times completes with the right SHA-256, resuming each time.
    @Test func aCutDownloadResumesInsteadOfStartingOver() async throws {
        let content = TestHTTPServer.bytes(count: Self.size, seed: 7)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/big", .init(body: content, etag: "\"v1\"", faults: [.cutAfter(40 << 20), .cutAfter(60 << 20), .cutAfter(80 << 20)]))
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("big.bin").path
            let job = try await client.submit(JobSubmission(
                kind: .fetch, url: server.url("/big"), destination: destination, sha256: TestHTTPServer.sha256(content)))
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(240))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.attempts == 4)
            #expect(done.result?.sha256 == TestHTTPServer.sha256(content))
            let sent = server.bytesSent("/big")
            print("256 MiB fetch cut 3 times: \(sent) bytes sent for \(Self.size) (\(String(format: "%.2f", Double(sent) / Double(Self.size) * 100 - 100))% extra)")
            #expect(Double(sent) < Double(Self.size) * 1.10, "resuming must not re-download: \(sent) bytes sent")
            let ranges = server.requests.compactMap { $0.header("range") }
            #expect(ranges.count == 3, "every retry asks for a range: \(ranges)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
            #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.directory.path).filter { $0.hasSuffix(".part") }.isEmpty)
        }
    }

    /// kill -9 in the middle of a 256 MiB fetch: after the restart it continues from the partial offset.
    @Test func aKilledDaemonResumesFromThePartialOffset() async throws {
        let content = TestHTTPServer.bytes(count: Self.size, seed: 8)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/big", .init(body: content, etag: "\"k1\"", faults: [.stallAfter(100 << 20)]))
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("killed.bin").path
            let job = try await client.submit(JobSubmission(kind: .fetch, url: server.url("/big"), destination: destination))
            let checkpoint = try await awaitEvent(client: client, "a checkpoint past 64 MiB") { event in
                event.jobId == job.id && resumableOffset(event) >= 64 << 20
            }
            #expect(!FileManager.default.fileExists(atPath: destination), "the destination must never hold a partial file")
            daemon.kill()
            try daemon.start()
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(240))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            let resumedAt = server.requests.last { $0.uri == "/big" }?.header("range")
            let offset = Int(resumedAt?.dropFirst(6).split(separator: "-").first ?? "") ?? 0
            print("after kill -9 the fetch resumed at byte \(offset) (the last checkpoint seen said \(resumableOffset(checkpoint)))")
            #expect(offset >= 64 << 20, "resumed from \(offset), not from the partial offset")
            #expect(done.result?.sha256 == TestHTTPServer.sha256(content))
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
        }
    }

    @Test func cancellingARunningFetchRemovesItsPartialFile() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/big", .init(body: TestHTTPServer.bytes(count: 8 << 20), etag: "\"c1\"", faults: [.stallAfter(4 << 20)]))
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("cancelled.bin").path
            let job = try await client.submit(JobSubmission(kind: .fetch, url: server.url("/big"), destination: destination))
            try await awaitEvent(client: client, "bytes arriving") {
                $0.jobId == job.id && $0.type == .progress && ($0.progress?.bytesDone ?? 0) > 0
            }
            let staging = daemon.directory.appendingPathComponent(".cancelled.bin.lull-\(job.id).part").path
            #expect(FileManager.default.fileExists(atPath: staging))
            #expect(try await client.cancel(job.id).state == .cancelled)
            #expect(!FileManager.default.fileExists(atPath: staging), "cancel removes the partial download")
            #expect(!FileManager.default.fileExists(atPath: destination))
        }
    }

    @Test func aRepeatedFetchIsConditionalAnd304MeansNoNewData() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/feed", .init(body: Array("feed v1\n".utf8), etag: "\"feed-1\""))
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("feed.txt").path
            let first = try await client.submit(JobSubmission(kind: .fetch, url: server.url("/feed"), destination: destination))
            #expect(try await awaitJob(first.id, in: [.succeeded, .failed], client: client).result?.etag == "\"feed-1\"")
            let second = try await client.submit(JobSubmission(kind: .fetch, url: server.url("/feed"), destination: destination))
            let done = try await awaitJob(second.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded)
            #expect(done.result?.notModified == true)
            #expect(done.result?.httpStatus == 304)
            #expect(server.requests.last?.header("if-none-match") == "\"feed-1\"")
            #expect(try String(contentsOfFile: destination, encoding: .utf8) == "feed v1\n")
        }
    }

    @Test func aChecksumMismatchFailsForGoodAndLeavesNothing() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/x", Array("payload".utf8))
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("x").path
            let job = try await client.submit(JobSubmission(
                kind: .fetch, url: server.url("/x"), destination: destination, sha256: String(repeating: "0", count: 64)))
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.error?.code == "checksum_mismatch")
            #expect(done.attempts == 1)
            #expect(!FileManager.default.fileExists(atPath: destination))
        }
    }

    @Test func aStalledServerTimesOutAndTheJobSaysWhy() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/slow", .init(body: Array(repeating: 1, count: 1 << 20), faults: [.stallAfter(1000), .stallAfter(1000)]))
        try await withDaemon(config: fastRetries) { daemon, client in
            let job = try await client.submit(JobSubmission(
                kind: .fetch, url: server.url("/slow"), destination: daemon.directory.appendingPathComponent("slow").path,
                retry: RetrySettings(maxAttempts: 2), timeouts: TimeoutSettings(idleSeconds: 1)))
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .failed)
            #expect(done.error?.code == "idle_timeout")
            #expect(done.attempts == 2)
        }
    }
}

@Suite struct PushTests {
    @Test func fiveFailuresThenSuccessWithOneIdempotencyKey() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/hook", .init(faults: Array(repeating: .status(503), count: 5)))
        try await withDaemon(config: fastRetries) { _, client in
            let job = try await client.submit(JobSubmission(
                kind: .push, url: server.url("/hook"), contentType: "application/json", body: #"{"event":"done"}"#))
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.attempts == 6)
            #expect(done.result?.httpStatus == 201)
            let requests = server.requests.filter { $0.uri == "/hook" }
            #expect(requests.count == 6)
            let keys = Set(requests.compactMap { $0.header("idempotency-key") })
            #expect(keys.count == 1, "every attempt carries the same Idempotency-Key: \(keys)")
            #expect(requests.allSatisfy { $0.body == Array(#"{"event":"done"}"#.utf8) })
            #expect(requests.allSatisfy { $0.header("content-type") == "application/json" })
        }
    }

    @Test func aBadRequestIsNotRetried() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/hook", .init(faults: [.status(400)]))
        try await withDaemon(config: fastRetries) { _, client in
            let job = try await client.submit(JobSubmission(kind: .push, url: server.url("/hook"), body: "x"))
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .failed)
            #expect(done.error?.code == "http_400")
            #expect(done.error?.retryable == false)
            #expect(server.requests.count == 1)
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/hook", .init(faults: [.status(429, headers: [("Retry-After", "3")])]))
        try await withDaemon(config: fastRetries) { _, client in
            let job = try await client.submit(JobSubmission(kind: .push, url: server.url("/hook"), body: "x"))
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded)
            let times = server.requests.map(\.time)
            #expect(times.count == 2)
            let waited = times[1].timeIntervalSince(times[0])
            print("Retry-After: 3 → waited \(String(format: "%.3f", waited)) s")
            #expect(abs(waited - 3) <= 0.3, "waited \(waited) s for Retry-After: 3")
        }
    }
}

@Suite struct UploadTests {
    func makeFile(_ directory: URL, _ name: String, _ bytes: [UInt8]) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func rawAndMultipartUploadsDeliverTheBytes() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/put", .init())
        server.route("/form", .init())
        let content = TestHTTPServer.bytes(count: 8 << 20, seed: 3)
        try await withDaemon(config: fastRetries) { daemon, client in
            let source = try makeFile(daemon.directory, "up.bin", content)
            let raw = try await client.submit(JobSubmission(kind: .upload, url: server.url("/put"), source: source))
            #expect(try await awaitJob(raw.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            let put = try #require(server.requests.first { $0.uri == "/put" })
            #expect(put.method == "PUT")
            #expect(put.bodySHA256 == TestHTTPServer.sha256(content))

            let form = try await client.submit(JobSubmission(
                kind: .upload, url: server.url("/form"), source: source, uploadProtocol: .multipart, formField: "payload"))
            let formDone = try await awaitJob(form.id, in: [.succeeded, .failed], client: client)
            #expect(formDone.state == .succeeded)
            #expect(formDone.result?.responseBody?.contains("stored") == true)
            let post = try #require(server.requests.first { $0.uri == "/form" })
            #expect(post.method == "POST")
            #expect(post.header("content-type")?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(String(decoding: post.body.prefix(300), as: UTF8.self).contains("name=\"payload\"; filename=\"up.bin\""))
            #expect(post.bodyBytes > content.count)
        }
    }

    @Test func aSourceThatChangesBetweenAttemptsFailsTheJob() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        // The first attempt is refused with Retry-After: 2, which leaves time to change the file.
        server.route("/put", .init(faults: [.status(503, headers: [("Retry-After", "2")])]))
        try await withDaemon(config: fastRetries) { daemon, client in
            let source = try makeFile(daemon.directory, "changing.bin", TestHTTPServer.bytes(count: 4 << 20))
            let job = try await client.submit(JobSubmission(kind: .upload, url: server.url("/put"), source: source))
            try await awaitEvent(client: client, "the first attempt failing") { $0.jobId == job.id && $0.type == .retrying }
            try Data(TestHTTPServer.bytes(count: 5 << 20)).write(to: URL(fileURLWithPath: source))
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .failed)
            #expect(done.error?.code == "source_changed")
        }
    }
}
