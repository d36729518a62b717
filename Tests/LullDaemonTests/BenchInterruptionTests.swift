import Foundation
import LullTestSupport
import Testing

/// Ctrl-C during `lull-bench` ends the lulld it started and removes the run's directory. Before,
/// lulld (in a process group of its own, as Foundation's `Process` starts every child) ran on
/// after the bench had died, in a state directory nothing removed.
@Suite struct BenchInterruptionTests {
    @Test(.timeLimit(.minutes(2)))
    func anInterruptedRunLeavesNoDaemonAndNoDirectory() async throws {
        try await withTemporaryDirectory("bench") { directory in
            let output = directory + "/performance.md"
            try "no markers\n".write(toFile: output, atomically: true, encoding: .utf8)
            let log = directory + "/bench.log"
            // As a shell starts a foreground job: a group of its own, signals at their defaults.
            let bench = try CleanSpawn.spawn(
                [DaemonProcess.binary("lull-bench"), "--quick", "--only", "submit", "--output", output],
                environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": directory]) { $1 },
                output: .file(log),
                processGroup: true
            )
            var ended: Int32?
            defer { if ended == nil { kill(-bench, SIGKILL) } }

            // The lulld it starts for the section, in the run's directory.
            let scratch = directory + "/lull-bench-run-\(bench)"
            var daemon: pid_t?
            let deadline = ContinuousClock.now + .seconds(60)
            while daemon == nil, ContinuousClock.now < deadline {
                daemon = ProcessTable.descendants(of: bench).first { ProcessTable.name(of: $0) == "lulld" }
                if daemon == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            let lulld = try #require(daemon, "no lulld under lull-bench: \(read(log))")
            defer { if ProcessTable.isAlive(lulld) { kill(lulld, SIGKILL) } }
            #expect(FileManager.default.fileExists(atPath: scratch))

            // What a terminal's Ctrl-C sends: SIGINT to the foreground group, the bench's own.
            kill(-bench, SIGINT)
            let exited = ContinuousClock.now + .seconds(15)
            while ended == nil, ContinuousClock.now < exited {
                var status: Int32 = 0
                if waitpid(bench, &status, WNOHANG) == bench {
                    ended = status
                } else {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let status = try #require(ended, "lull-bench still running 15 s after SIGINT")
            // Exited with 130, not killed by the signal.
            #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 130, "wait status \(status)")
            #expect(!ProcessTable.isAlive(lulld), "lulld \(lulld) outlived the interrupted bench")
            #expect(!FileManager.default.fileExists(atPath: scratch), "\(scratch) left behind")
            #expect(read(log).contains("interrupted: ended what the run started"), "\(read(log))")
        }
    }

    private func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}
