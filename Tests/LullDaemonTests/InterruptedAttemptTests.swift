import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

@Suite struct InterruptedAttemptTests {
    /// A job cut short by clean daemon stops is not charged an attempt for each: `show` says
    /// "attempts 1" after two restarts (the field report had "attempts 4" on a job with
    /// `--max-attempts 2`). A crash does count, so a job that brings the daemon down cannot
    /// restart it for ever within one attempt.
    @Test func cleanRestartsDoNotUseUpAttemptsButCrashesDo() async throws {
        // A server that never answers keeps the fetch running until the daemon stops.
        let listener = try Socket.listenLoopback()
        var closed = false
        defer { if !closed { listener.close() } }
        try await withDaemon { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:\(listener.port)/stall",
                    destination: daemon.directory.appendingPathComponent("s").path,
                    retry: RetrySettings(maxAttempts: 2, baseSeconds: 0.01, capSeconds: 0.01)
                )
            )
            _ = try await awaitJob(job.id, in: [.running], client: client)
            #expect(daemon.stop() == 0)
            try daemon.start()
            _ = try await runningAgain(job.id, client)
            #expect(daemon.stop() == 0)
            try daemon.start()
            let running = try await runningAgain(job.id, client)
            let history = try await client.events(after: 0).events.filter { $0.jobId == job.id }
                .map { "\($0.type.rawValue) \($0.attempt.map(String.init) ?? "-") \($0.message ?? "")" }
            #expect(running.attempts == 1, "\(history.joined(separator: "\n"))")
            let show = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["show", "\(job.id)", "--socket", daemon.socketPath]
            )
            #expect(show.stdout.range(of: #"attempts\s+1\n"#, options: .regularExpression) != nil, "\(show.stdout)")

            // kill -9: the crash costs the attempt; the job runs again as attempt 2.
            daemon.kill()
            try daemon.start()
            #expect(try await runningAgain(job.id, client).attempts == 2)

            // Closing the listener resets the stalled connection: attempt 2 fails, and
            // max_attempts 2 leaves no retry.
            listener.close()
            closed = true
            let failed = try await awaitJob(job.id, in: [.failed], client: client)
            #expect(failed.attempts == 2)
            let retries = try await client.events(after: 0).events.filter { $0.jobId == job.id && $0.type == .retrying }
            #expect(retries.isEmpty)
        }
    }

    /// The job as the store has it once it runs again (`awaitJob` would match the history's
    /// first `started` event at once).
    private func runningAgain(_ id: Int64, _ client: LullClient) async throws -> JobView {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let job = try await client.job(id)
            if job.state == .running { return job }
            guard ContinuousClock.now < deadline else {
                throw TimedOut(description: "job \(id) did not run again: \(job.state)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
