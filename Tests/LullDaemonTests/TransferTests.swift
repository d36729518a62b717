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
        server.route(
            "/big",
            .init(
                body: content,
                etag: "\"v1\"",
                faults: [.cutAfter(40 << 20), .cutAfter(60 << 20), .cutAfter(80 << 20)]
            )
        )
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("big.bin").path
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/big"),
                    destination: destination,
                    sha256: TestHTTPServer.sha256(content)
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(240))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.attempts == 4)
            #expect(done.result?.sha256 == TestHTTPServer.sha256(content))
            let sent = server.bytesSent("/big")
            print(
                "256 MiB fetch cut 3 times: \(sent) bytes sent for \(Self.size) (\(String(format: "%.2f", Double(sent) / Double(Self.size) * 100 - 100))% extra)"
            )
            #expect(Double(sent) < Double(Self.size) * 1.10, "resuming must not re-download: \(sent) bytes sent")
            let ranges = server.requests.compactMap { $0.header("range") }
            #expect(ranges.count == 3, "every retry asks for a range: \(ranges)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: daemon.directory.path).filter {
                    $0.hasSuffix(".part")
                }.isEmpty
            )
        }
    }

    /// kill -9 in the middle of a 256 MiB fetch: after the restart it continues from the partial offset.
    @Test func aKilledDaemonResumesFromThePartialOffset() async throws {
        let content = TestHTTPServer.bytes(count: Self.size, seed: 8)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/big", .init(body: content, etag: "\"k1\"", faults: [.stallAfter(100 << 20)]))
        // At 128 MiB/s the checkpoints (every 0.1 s) are at most about 13 MiB apart, so one lands
        // between 64 MiB and the stall. (Unthrottled, a burst to the stall faster than the
        // interval left nothing past 64 MiB recorded, and the test waited in vain.)
        let config = "[limits]\nmax_bytes_per_second = 134217728\n\n" + fastRetries
        try await withDaemon(config: config) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("killed.bin").path
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/big"), destination: destination)
            )
            let checkpoint = try await awaitEvent(client: client, "a checkpoint past 64 MiB") { event in
                event.jobId == job.id && resumableOffset(event) >= 64 << 20
            }
            #expect(
                !FileManager.default.fileExists(atPath: destination),
                "the destination must never hold a partial file"
            )
            daemon.kill()
            try daemon.start()
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(240))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            let resumedAt = server.requests.last { $0.uri == "/big" }?.header("range")
            let offset = Int(resumedAt?.dropFirst(6).split(separator: "-").first ?? "") ?? 0
            print(
                "after kill -9 the fetch resumed at byte \(offset) (the last checkpoint seen said \(resumableOffset(checkpoint)))"
            )
            #expect(offset >= 64 << 20, "resumed from \(offset), not from the partial offset")
            #expect(done.result?.sha256 == TestHTTPServer.sha256(content))
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
        }
    }

    @Test func cancellingARunningFetchRemovesItsPartialFile() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route(
            "/big",
            .init(body: TestHTTPServer.bytes(count: 8 << 20), etag: "\"c1\"", faults: [.stallAfter(4 << 20)])
        )
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("cancelled.bin").path
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/big"), destination: destination)
            )
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

    /// Pause and resume back to back, while the paused attempt is still winding down: one
    /// attempt runs after them, not two, and it still holds its concurrency slot. (Once the
    /// old attempt's end cleared the new one's slot: the next job started beside it.)
    @Test func pauseAndResumeBackToBackLeaveOneAttemptHoldingTheSlot() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let content = TestHTTPServer.bytes(count: 512 << 10, seed: 9)
        let drip = TestHTTPServer.Fault.drip(bytes: 32 << 10, every: .milliseconds(50))
        server.route("/slow", .init(body: content, etag: "\"p1\"", faults: [drip, drip, drip]))
        server.serve("/next", Array("next\n".utf8))
        try await withDaemon(config: fastRetries + "\n[limits]\nmax_concurrent = 1\n") { daemon, client in
            let first = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/slow"),
                    destination: daemon.directory.appendingPathComponent("slow.bin").path
                )
            )
            try await awaitEvent(client: client, "bytes arriving") {
                $0.jobId == first.id && $0.type == .progress && ($0.progress?.bytesDone ?? 0) > 0
            }
            // Both commands in one write: the resume is read the moment the pause is answered.
            let connection = try UnixSocketConnection(path: daemon.socketPath)
            defer { connection.close() }
            #expect(
                connection.send(
                    HTTPFraming.request("POST", "/v1/jobs/\(first.id)/pause", headers: [], body: nil)
                        + HTTPFraming.request(
                            "POST",
                            "/v1/jobs/\(first.id)/resume",
                            headers: [],
                            body: nil,
                            close: true
                        )
                )
            )
            let answers = connection.receive(timeout: .seconds(30))
            #expect(answers.closed && HTTPFraming.status(of: answers.bytes) == 200)
            #expect(try await client.job(first.id).state != .paused, "the resume was carried out")
            try await awaitEvent(client: client, "the first job started again") {
                $0.jobId == first.id && $0.type == .started && $0.attempt == 2
            }
            // It holds the only slot: the second job waits for it.
            let second = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/next"),
                    destination: daemon.directory.appendingPathComponent("next.txt").path
                )
            )

            // The second job may start only once the first has finished.
            let order = try await withTimeout(.seconds(60), "both jobs to finish") {
                var ended: [Int64] = []
                for try await event in client.followEvents(after: 0) {
                    if event.jobId == second.id && event.type == .started && !ended.contains(first.id) {
                        return ["second started while the first still ran"]
                    }
                    if [.succeeded, .failed].contains(event.state), [first.id, second.id].contains(event.jobId) {
                        ended.append(event.jobId)
                        if ended.count == 2 { return ended.map { $0 == first.id ? "first" : "second" } }
                    }
                }
                return ["the event stream ended"]
            }
            #expect(order == ["first", "second"])
            #expect(try await client.job(first.id).state == .succeeded)
            #expect(try await client.status().running == 0)
            let data = try Data(contentsOf: daemon.directory.appendingPathComponent("slow.bin"))
            #expect(data == Data(content))
        }
    }

    @Test func aRepeatedFetchIsConditionalAnd304MeansNoNewData() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/feed", .init(body: Array("feed v1\n".utf8), etag: "\"feed-1\""))
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("feed.txt").path
            let first = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/feed"), destination: destination)
            )
            #expect(
                try await awaitJob(first.id, in: [.succeeded, .failed], client: client).result?.etag == "\"feed-1\""
            )
            let second = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/feed"), destination: destination)
            )
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
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/x"),
                    destination: destination,
                    sha256: String(repeating: "0", count: 64)
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.error?.code == "checksum_mismatch")
            #expect(done.attempts == 1)
            #expect(!FileManager.default.fileExists(atPath: destination))
        }
    }

    @Test func aStalledServerTimesOutAndTheJobSaysWhy() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route(
            "/slow",
            .init(body: Array(repeating: 1, count: 1 << 20), faults: [.stallAfter(1000), .stallAfter(1000)])
        )
        try await withDaemon(config: fastRetries) { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/slow"),
                    destination: daemon.directory.appendingPathComponent("slow").path,
                    retry: RetrySettings(maxAttempts: 2),
                    timeouts: TimeoutSettings(idleSeconds: 1)
                )
            )
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
            let job = try await client.submit(
                JobSubmission(
                    kind: .push,
                    url: server.url("/hook"),
                    contentType: "application/json",
                    body: #"{"event":"done"}"#
                )
            )
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

    /// The daemon takes a 429's `Retry-After: 3` as the delay (its own backoff here is 0.05 s) and
    /// retries no earlier. How promptly a due timer fires is the scheduler's, tested on a virtual
    /// clock (`notBeforeAndBackoffSetOneTimer`); here a wall-clock window only has to tell 3 s
    /// from the backoff, or from a backoff added on top, on a host that may be loaded.
    @Test func retryAfterIsHonoured() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/hook", .init(faults: [.status(429, headers: [("Retry-After", "3")])]))
        try await withDaemon(config: fastRetries) { _, client in
            let job = try await client.submit(JobSubmission(kind: .push, url: server.url("/hook"), body: "x"))
            let retrying = try await awaitEvent(client: client, "job \(job.id) to wait for a retry") {
                $0.jobId == job.id && $0.type == .retrying
            }
            // From the event, not a read of the job: on a loaded host the read can come after the retry.
            #expect(retrying.retryAt != nil)
            #expect(retrying.error?.retryAfterSeconds == 3)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded)
            let times = server.requests.map(\.time)
            #expect(times.count == 2)
            let waited = times[1].timeIntervalSince(times[0])
            print("Retry-After: 3 → waited \(String(format: "%.3f", waited)) s")
            #expect(waited >= 3, "retried \(waited) s after a 429 that said 3")
            #expect(waited < 4, "waited \(waited) s for Retry-After: 3")
        }
    }

    /// A pause and a resume are no way around a server's `Retry-After`: the store cleared the
    /// retry time at every change, so the resumed job was sent again at once.
    @Test func aPausedAndResumedJobStillWaitsForRetryAfter() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/hook", .init(faults: [.status(503, headers: [("Retry-After", "3600")])]))
        try await withDaemon(config: fastRetries) { _, client in
            let job = try await client.submit(JobSubmission(kind: .push, url: server.url("/hook"), body: "x"))
            let retrying = try await awaitEvent(client: client, "job \(job.id) to wait for a retry") {
                $0.jobId == job.id && $0.type == .retrying
            }
            let asked = try #require(retrying.retryAt)
            _ = try await client.pause(job.id)
            let resumed = try await client.resume(job.id)
            #expect(resumed.state == .queued)
            #expect(resumed.retryAt == asked)
            let explained = try await client.explain(job.id)
            #expect(explained.reasons.contains { $0.code == "backoff" }, "\(explained.reasons)")
            #expect(server.requests.count == 1, "the resumed job was sent again before its retry time")
        }
    }

    /// A server's `Retry-After` is the server's to choose, not to crash the daemon with: values
    /// past any clock (once a trap in lulld, and again at every start, as the retry time was
    /// stored) wait at most a week; what is not delay-seconds or a date is ignored.
    @Test func outlandishRetryAfterValuesWaitAtMostAWeek() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let values = ["100000000000000000", "99999999999999999999999", "1e300", "inf", "0x10", "-5"]
        for (index, value) in values.enumerated() {
            // Every request refused: the class backoff is fully jittered, so a job whose value is
            // ignored may retry within the test, and must find the same answer (and stay queued).
            let refusal = TestHTTPServer.Fault.status(503, headers: [("Retry-After", value)])
            server.route("/h\(index)", .init(faults: Array(repeating: refusal, count: 4)))
        }
        try await withDaemon(config: "[retry]\nbase_seconds = 30\ncap_seconds = 60\n") { daemon, client in
            var jobs: [Int64] = []
            for index in values.indices {
                jobs.append(
                    try await client.submit(JobSubmission(kind: .push, url: server.url("/h\(index)"), body: "x")).id
                )
            }
            let week = 604_800.0
            for (index, id) in jobs.enumerated() {
                try await awaitEvent(client: client, "job \(id) to wait for a retry") {
                    $0.jobId == id && $0.type == .retrying
                }
                let waiting = try await client.job(id)
                let wait = try #require(waiting.retryAt).timeIntervalSinceNow
                if index < 2 {
                    #expect(wait > week - 60 && wait <= week, "Retry-After: \(values[index]) → \(wait) s")
                    #expect(waiting.error?.retryAfterSeconds == week)
                } else {
                    #expect(
                        wait <= 60,
                        "Retry-After: \(values[index]) is not delay-seconds: the class backoff, not \(wait) s"
                    )
                    #expect(waiting.error?.retryAfterSeconds == nil)
                }
            }
            // The stored retry times do not stop the daemon from starting again.
            #expect(daemon.stop() == 0)
            try daemon.start()
            // A job whose class backoff was short may be retrying at this moment (and then
            // queued again by the same answer): every job is queued once that attempt ends.
            var states: [String: Int] = [:]
            for _ in 0..<100 {
                states = try await client.status().jobs
                if states["queued"] == values.count { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(states["queued"] == values.count, "\(states)")
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

            let form = try await client.submit(
                JobSubmission(
                    kind: .upload,
                    url: server.url("/form"),
                    source: source,
                    uploadProtocol: .multipart,
                    formField: "payload"
                )
            )
            let formDone = try await awaitJob(form.id, in: [.succeeded, .failed], client: client)
            #expect(formDone.state == .succeeded)
            #expect(formDone.result?.responseBody?.contains("stored") == true)
            let post = try #require(server.requests.first { $0.uri == "/form" })
            #expect(post.method == "POST")
            #expect(post.header("content-type")?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(
                String(decoding: post.body.prefix(300), as: UTF8.self).contains("name=\"payload\"; filename=\"up.bin\"")
            )
            #expect(post.bodyBytes > content.count)
        }
    }

    @Test func aSourceThatChangesBetweenAttemptsFailsTheJob() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        // The first attempt is refused with Retry-After: 30, and the job is paused while it waits:
        // the file is changed before the next attempt however slow a loaded host is (a resume
        // does not wait out the Retry-After, so the test does not either).
        server.route("/put", .init(faults: [.status(503, headers: [("Retry-After", "30")])]))
        try await withDaemon(config: fastRetries) { daemon, client in
            let source = try makeFile(daemon.directory, "changing.bin", TestHTTPServer.bytes(count: 4 << 20))
            let job = try await client.submit(JobSubmission(kind: .upload, url: server.url("/put"), source: source))
            try await awaitEvent(client: client, "the first attempt failing") {
                $0.jobId == job.id && $0.type == .retrying
            }
            #expect(try await client.pause(job.id).state == .paused)
            try Data(TestHTTPServer.bytes(count: 5 << 20)).write(to: URL(fileURLWithPath: source))
            _ = try await client.resume(job.id)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .failed)
            #expect(done.error?.code == "source_changed")
        }
    }
}
