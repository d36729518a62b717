import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Pausing a running command freezes it where it is (SIGSTOP of its process group) instead of
/// ending it; resuming lets the same process go on; cancelling a frozen one ends it.
@Suite struct RunPauseFreezesTests {
    @Test func aPausedCommandUsesNoCPUUntilResumedAndGoesOnInTheSameProcess() async throws {
        try await withDaemon { daemon, client in
            let submitted = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                [
                    "submit", "run", "--json", "--socket", daemon.socketPath, "--", "sh", "-c",
                    "echo $$; while :; do :; done",
                ]
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let id = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id
            let pid = try await withTimeout(.seconds(10), "the command's pid in its output") { () -> Int32 in
                while true {
                    let text = String(decoding: try await client.output(id), as: UTF8.self)
                    if let line = text.split(separator: "\n").first, let pid = Int32(line) { return pid }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(processCPU(pid) > 0, "the loop runs")
            // The view says what the command uses: a busy loop, nearly a whole CPU.
            _ = try await client.job(id)
            try await Task.sleep(for: .milliseconds(1100))
            let usage = try #require(try await client.job(id).usage)
            #expect(usage.cpuSeconds > 0.2 && (usage.cpuPercent ?? 0) > 30, "\(usage)")
            #expect(usage.memoryBytes > 0)
            let shown = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["show", String(id), "--socket", daemon.socketPath]
            )
            #expect(shown.stdout.contains("% CPU"), "\(shown.stdout)")

            let paused = try await client.pause(id)
            #expect(paused.state == .paused)
            let frozenAt = processCPU(pid)
            try await Task.sleep(for: .milliseconds(800))
            #expect(processState(pid) == "T", "stopped, not ended: \(processState(pid) ?? "gone")")
            #expect(processCPU(pid) == frozenAt, "no CPU while paused")
            #expect(try await client.job(id).attempts == 1)

            let resumed = try await client.resume(id)
            #expect(resumed.state == .running, "the same attempt goes on")
            try await Task.sleep(for: .milliseconds(500))
            #expect(processCPU(pid) > frozenAt, "the same process runs again")
            #expect(try await client.job(id).attempts == 1)

            _ = try await client.pause(id)
            let cancelled = try await client.cancel(id)
            #expect(cancelled.state == .cancelled)
            try await withTimeout(.seconds(15), "the frozen command to end") {
                while processState(pid) != nil && processState(pid) != "Z" {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
    }

    /// utime + stime in clock ticks, from /proc/PID/stat.
    private func processCPU(_ pid: Int32) -> Int {
        guard let fields = statFields(pid), fields.count > 12 else { return -1 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    /// The one-letter state (R, S, T, Z), nil once the process is gone.
    private func processState(_ pid: Int32) -> String? {
        statFields(pid)?.first.map(String.init)
    }

    private func statFields(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}
