import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

@Suite struct FetchEndToEndTests {
    @Test func lullctlFetchLandsTheServersBytes() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let content = TestHTTPServer.bytes(count: 3 << 20, seed: 42)
        server.serve("/f", content)
        try await withDaemon { daemon, client in
            let destination = daemon.directory.appendingPathComponent("downloads/f.bin").path
            try FileManager.default.createDirectory(
                atPath: daemon.directory.appendingPathComponent("downloads").path,
                withIntermediateDirectories: true
            )
            let submitted = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                [
                    "submit", "fetch", server.url("/f"), "-o", destination, "--label", "e2e", "--json", "--socket",
                    daemon.socketPath,
                ]
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let job = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
            #expect(job.state == .queued)
            #expect(job.label == "e2e")

            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.result?.sha256 == TestHTTPServer.sha256(content))
            let written = try Data(contentsOf: URL(fileURLWithPath: destination))
            #expect(written == Data(content))
            // Nothing but the destination is left in the directory: the staging file was renamed.
            let leftovers = try FileManager.default.contentsOfDirectory(
                atPath: daemon.directory.appendingPathComponent("downloads").path
            )
            #expect(leftovers == ["f.bin"])

            let shown = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["show", String(job.id), "--socket", daemon.socketPath]
            )
            #expect(shown.stdout.contains("succeeded"))
            #expect(shown.stdout.contains(TestHTTPServer.sha256(content)))
        }
    }

    @Test func curlSubmissionWithPlainJSONWorks() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/plain", Array("hello from the test server\n".utf8))
        try await withDaemon { daemon, client in
            let destination = daemon.directory.appendingPathComponent("plain.txt").path
            let body = #"{"kind":"fetch","url":"\#(server.url("/plain"))","destination":"\#(destination)"}"#
            let (status, text) = try curl(daemon.socketPath, "POST", "/v1/jobs", body: Data(body.utf8))
            #expect(status == 201, "\(text)")
            let job = try WireJSON.decoder().decode(JobView.self, from: Data(text.utf8))
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded)
            #expect(try String(contentsOfFile: destination, encoding: .utf8) == "hello from the test server\n")
        }
    }

    @Test func aFailedFetchLeavesNoFileAndSaysWhy() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        try await withDaemon { daemon, client in
            let destination = daemon.directory.appendingPathComponent("missing.bin").path
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/missing"), destination: destination)
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .failed)
            #expect(done.error?.code == "http_404")
            #expect(!FileManager.default.fileExists(atPath: destination))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: daemon.directory.path).filter {
                $0.hasSuffix(".part")
            }
            #expect(leftovers.isEmpty, "a job that failed for good leaves no staging file: \(leftovers)")
        }
    }

    /// The store keeps bytes only; a running job's view also gives the rate and the time left
    /// from its last progress report, and `lullctl show` prints them.
    @Test func aRunningJobsViewGivesItsRateAndTimeLeft() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route(
            "/slow.bin",
            .init(
                body: TestHTTPServer.bytes(count: 8 << 20),
                faults: [.drip(bytes: 32 << 10, every: .milliseconds(50))]
            )
        )
        try await withDaemon(config: fastRetries) { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/slow.bin"),
                    destination: daemon.directory.appendingPathComponent("slow.bin").path
                )
            )
            try await awaitEvent(client: client, "a progress report with a rate") {
                $0.jobId == job.id && ($0.progress?.bytesPerSecond ?? 0) > 0
            }
            let running = try await client.job(job.id)
            #expect(running.state == .running)
            #expect((running.progress?.bytesPerSecond ?? 0) > 0, "\(String(describing: running.progress))")
            #expect((running.progress?.etaSeconds ?? 0) > 0, "\(String(describing: running.progress))")
            let shown = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["show", String(job.id), "--socket", daemon.socketPath]
            )
            let transfer = shown.stdout.split(separator: "\n").first { $0.contains("transfer") }.map(String.init) ?? ""
            #expect(transfer.contains("/s, ") && transfer.hasSuffix(" left"), "\(shown.stdout)")
            _ = try await client.cancel(job.id)
            let cancelled = try await awaitJob(job.id, in: [.cancelled], client: client)
            #expect(cancelled.progress?.bytesPerSecond == nil, "an ended job has no rate")
        }
    }

    /// A transfer that stalls sends no more reports; its view stops promising the last rate and
    /// time left a few intervals later, and keeps the bytes.
    @Test func aStalledJobsViewDropsItsRate() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/stuck.bin", .init(body: TestHTTPServer.bytes(count: 4 << 20), faults: [.stallAfter(2 << 20)]))
        try await withDaemon(config: fastRetries) { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/stuck.bin"),
                    destination: daemon.directory.appendingPathComponent("stuck.bin").path,
                    timeouts: TimeoutSettings(idleSeconds: 60)
                )
            )
            try await awaitEvent(client: client, "a rate before the stall") {
                $0.jobId == job.id && ($0.progress?.bytesPerSecond ?? 0) > 0
            }
            let deadline = ContinuousClock.now + .seconds(10)
            var view = try await client.job(job.id)
            while view.progress?.bytesPerSecond != nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                view = try await client.job(job.id)
            }
            #expect(view.state == .running)
            #expect(
                view.progress?.bytesPerSecond == nil && view.progress?.etaSeconds == nil,
                "\(String(describing: view.progress))"
            )
            #expect((view.progress?.bytesDone ?? 0) > 0)
            _ = try await client.cancel(job.id)
        }
    }

    /// `-o DIR` where DIR exists: found out before the download, not at the rename after it.
    @Test func aDirectoryAtTheDestinationFailsBeforeAnyByteIsFetched() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/big.bin", TestHTTPServer.bytes(count: 1 << 20))
        try await withDaemon { daemon, client in
            let directory = daemon.directory.appendingPathComponent("downloads")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // Seen at submission.
            do {
                _ = try await client.submit(
                    JobSubmission(kind: .fetch, url: server.url("/big.bin"), destination: directory.path)
                )
                Issue.record("a fetch onto a directory was accepted")
            } catch LullClientError.api(_, let detail) {
                #expect(detail.message.contains("is a directory; give a path to a file inside it"), "\(detail)")
            }
            // A directory made there after the submission: seen when the attempt starts.
            let later = daemon.directory.appendingPathComponent("later")
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/big.bin"),
                    destination: later.path,
                    notBefore: Date().addingTimeInterval(3)
                )
            )
            try FileManager.default.createDirectory(at: later, withIntermediateDirectories: true)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .failed)
            #expect(done.error?.code == "file_error")
            #expect(done.error?.message.contains("Is a directory") == true, "\(String(describing: done.error))")
            #expect(
                done.error?.message.contains("a path to a file inside it") == true,
                "says what to do: \(String(describing: done.error))"
            )
            #expect(server.requests.isEmpty, "nothing was downloaded only to be thrown away")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: later.path).isEmpty)
        }
    }
}
