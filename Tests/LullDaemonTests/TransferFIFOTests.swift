import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A FIFO where a transfer expects a regular file (an upload's source, a download's staging
/// path) must fail that job at once. Opening one the ordinary way waits for the other end,
/// holding one of the few threads all file work of all jobs shares, and no timeout of the job
/// reaches it.
@Suite struct TransferFIFOTests {
    /// The daemon's blocking pool gets this many threads, so the test can fill it.
    static let poolThreads = 2

    /// Opens the other end of `fifo` without waiting and closes it again, which lets an `open`
    /// stuck on it return, so the daemon can stop even when the test failed.
    static func release(_ fifo: String, reading: Bool) {
        let fd = open(fifo, (reading ? O_RDONLY : O_WRONLY) | O_NONBLOCK)
        if fd >= 0 { close(fd) }
    }

    @Test func anUploadFromAFIFOFailsAtOnceAndOtherJobsStillRun() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/up", .init())
        let content = TestHTTPServer.bytes(count: 100_000, seed: 5)
        server.serve("/f", content)
        let environment = ["NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT": String(Self.poolThreads)]
        try await withDaemon(config: fastRetries, environment: environment) { daemon, client in
            let fifo = daemon.directory.appendingPathComponent("pipe").path
            try #require(mkfifo(fifo, 0o644) == 0)
            defer { Self.release(fifo, reading: false) }
            // Submitted as a FIFO: refused at once.
            do {
                _ = try await client.submit(JobSubmission(kind: .upload, url: server.url("/up"), source: fifo))
                Issue.record("an upload of a FIFO was accepted")
            } catch LullClientError.api(_, let detail) {
                #expect(detail.field == "source" && detail.message.contains("is not a regular file"), "\(detail)")
            }

            // A regular file at submission that is a FIFO by the time the job starts: the
            // attempt checks again and fails at once instead of blocking a pool thread.
            let swapped = daemon.directory.appendingPathComponent("swapped").path
            try Data("a file for now\n".utf8).write(to: URL(fileURLWithPath: swapped))
            let started = ContinuousClock.now
            var uploads: [JobView] = []
            for _ in 0..<Self.poolThreads {
                uploads.append(
                    try await client.submit(
                        JobSubmission(
                            kind: .upload,
                            url: server.url("/up"),
                            source: swapped,
                            timeouts: TimeoutSettings(idleSeconds: 1, totalSeconds: 2),
                            notBefore: Date().addingTimeInterval(3)
                        )
                    )
                )
            }
            try FileManager.default.removeItem(atPath: swapped)
            try #require(mkfifo(swapped, 0o644) == 0)
            defer { Self.release(swapped, reading: false) }
            let destination = daemon.directory.appendingPathComponent("f.bin").path
            // Starts with the uploads, so it needs a pool thread while they hold theirs.
            let fetch = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/f"),
                    destination: destination,
                    notBefore: Date().addingTimeInterval(3)
                )
            )

            for upload in uploads {
                let done = try await awaitJob(
                    upload.id,
                    in: [.succeeded, .failed],
                    client: client,
                    timeout: .seconds(20)
                )
                #expect(done.state == .failed)
                #expect(done.attempts == 1, "not retried: the source stays a FIFO")
                #expect(done.error?.code == "file_error")
                #expect(done.error?.retryable == false)
                #expect(done.error?.message == "cannot upload \(swapped): it is a FIFO, not a regular file")
            }
            let elapsed = ContinuousClock.now - started
            #expect(elapsed < .seconds(10), "failed after \(elapsed)")
            let fetched = try await awaitJob(
                fetch.id,
                in: [.succeeded, .failed],
                client: client,
                timeout: .seconds(20)
            )
            #expect(fetched.state == .succeeded, "\(String(describing: fetched.error))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
            #expect(!server.requests.contains { $0.uri == "/up" }, "nothing was sent for the FIFO")
        }
    }

    @Test func aFIFOAtTheStagingPathFailsTheFetchAtOnce() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/f", Array("data\n".utf8))
        try await withDaemon(config: fastRetries) { daemon, client in
            let first = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/f"),
                    destination: daemon.directory.appendingPathComponent("first").path
                )
            )
            #expect(try await awaitJob(first.id, in: [.succeeded, .failed], client: client).state == .succeeded)

            let destination = daemon.directory.appendingPathComponent("second").path
            let staging = daemon.directory.appendingPathComponent(".second.lull-\(first.id + 1).part").path
            try #require(mkfifo(staging, 0o644) == 0)
            defer { Self.release(staging, reading: true) }
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/f"),
                    destination: destination,
                    timeouts: TimeoutSettings(idleSeconds: 1, totalSeconds: 2)
                )
            )
            #expect(job.id == first.id + 1)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(20))
            #expect(done.state == .failed)
            #expect(done.error?.code == "file_error")
            #expect(done.error?.retryable == false)
            #expect(done.error?.message == "cannot create \(staging): it is a FIFO, not a regular file")
            #expect(!FileManager.default.fileExists(atPath: destination))
        }
    }
}
