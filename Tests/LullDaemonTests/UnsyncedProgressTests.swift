import Foundation
import LullAPI
import LullClient
import LullCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A running job's progress reports are stored without an fsync each: a job reports every
/// progress interval, and a sync that often keeps a laptop's disk from ever idling. A state
/// change still waits for the disk. Counted by the kernel's side: strace on the real lulld.
@Suite(.timeLimit(.minutes(2)))
struct UnsyncedProgressTests {
    static var hasStrace: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") }

    @Test(.enabled(if: hasStrace, "needs strace"))
    func progressReportsAreNotSyncedWhileTheCancelThatEndsThemIs() async throws {
        try await withDaemon(config: "[transfers]\nprogress_interval = 0.05\n") { daemon, client in
            let job = try await client.submit(JobSubmission(kind: .run, url: "", argv: ["sleep", "120"]))
            let first = try await awaitEvent(client: client, timeout: .seconds(20), "a first sample") {
                $0.jobId == job.id && $0.type == .progress
            }
            let trace = daemon.directory.appendingPathComponent("syncs.trace").path
            let strace = try BackgroundCommand(
                "/usr/bin/strace",
                ["-f", "-e", "trace=fsync,fdatasync,syncfs,sync_file_range,msync", "-o", trace, "-p", "\(daemon.pid)"],
                in: daemon.directory
            )
            // Killed, not stopped: it is started with the test's signal mask. The kernel detaches lulld.
            defer { strace.kill() }
            try await Self.waitUntilEveryThreadIsTraced(daemon.pid, strace)

            let reports = try await withTimeout(.seconds(30), "40 progress reports") {
                var seen = 0
                for try await event in client.followEvents(after: first.seq)
                where event.jobId == job.id && event.type == .progress {
                    seen += 1
                    if seen == 40 { return seen }
                }
                return seen
            }
            _ = try await client.cancel(job.id)
            _ = try await awaitJob(job.id, in: [.cancelled], client: client)
            // The cancel's commit is synced: that also shows the trace sees the store's thread.
            // strace writes each call as it returns, so the line may come just after the answer.
            var syncs: [Substring] = []
            var text = ""
            let deadline = ContinuousClock.now + .seconds(5)
            while syncs.isEmpty && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                text = try String(contentsOfFile: trace, encoding: .utf8)
                syncs = text.split(separator: "\n").filter {
                    $0.contains("fsync(") || $0.contains("fdatasync(") || $0.contains("syncfs(")
                        || $0.contains("sync_file_range(") || $0.contains("msync(")
                }
            }
            #expect(!syncs.isEmpty, "no sync at all, not even the cancel's: \(text)")
            #expect(syncs.count <= 4, "\(syncs.count) syncs over \(reports) progress reports and a cancel:\n\(text)")
        }
    }

    /// `strace -f -p` attaches to every thread of the process and then says so, in one line.
    private static func waitUntilEveryThreadIsTraced(_ pid: Int32, _ strace: BackgroundCommand) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if strace.stderr.contains("Process \(pid) attached") { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TimedOut(description: "strace did not attach to lulld's threads: \(strace.stderr)")
    }
}
