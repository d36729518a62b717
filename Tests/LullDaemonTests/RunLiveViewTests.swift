import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// A running command in `lullctl watch` and `lullctl top`: its CPU share and memory where a
/// transfer has its bar and bytes, from the samples the daemon takes while it runs.
@Suite(.enabled(if: TmuxSession.isAvailable, "needs tmux (make test installs it)"), .timeLimit(.minutes(2)))
struct RunLiveViewTests {
    @Test func watchAndTopShowARunningCommandsCPUAndMemory() async throws {
        try await withDaemon(config: "[transfers]\nprogress_interval = 0.5\n") { daemon, client in
            let job = try await client.submit(
                JobSubmission(kind: .run, url: "", label: "spin", argv: ["sh", "-c", "while :; do :; done"])
            )
            let environment = LiveViewTests.terminalEnvironment(daemon)
            let watch = try TmuxSession("\(LiveViewTests.lullctl) watch \(job.id)", environment: environment)
            defer { watch.close() }
            let watched = try watch.waitForScreen("the command's CPU share and memory") { screen in
                Self.jobLine(job.id, in: screen).map(Self.showsBusyUsage) ?? false
            }
            TmuxSession.keep(watched, as: "watch-run.txt")
            let line = try #require(Self.jobLine(job.id, in: watched))
            #expect(line.contains("running") && line.contains("while :; do :; done"), "\(line)")
            #expect(!line.contains("░") && !line.contains("connecting"), "no transfer's bar: \(line)")

            let top = try TmuxSession("\(LiveViewTests.lullctl) top", environment: environment)
            defer { top.close() }
            let screen = try top.waitForScreen("the running command's line") { screen in
                screen.contains("RUNNING (1)") && (Self.jobLine(job.id, in: screen).map(Self.showsBusyUsage) ?? false)
            }
            TmuxSession.keep(screen, as: "top-run.txt")
            #expect(Self.jobLine(job.id, in: screen)?.contains("default") == true)
            try top.send("q")
            try top.waitForScreen("top to quit") { $0.contains("exit=0") }

            _ = try await client.cancel(job.id)
            try watch.waitForScreen("watch to see the end and exit") {
                $0.contains("cancelled") && $0.contains("exit=")
            }
        }
    }

    /// The row that starts with the job's id.
    private static func jobLine(_ id: Int64, in screen: String) -> String? {
        screen.split(separator: "\n").map(String.init).first {
            $0.drop { $0 == " " }.hasPrefix("\(id) ")
        }
    }

    /// "CPU  98%" or more than half a CPU, and the memory beside it.
    private static func showsBusyUsage(_ line: String) -> Bool {
        guard let cpu = line.range(of: "CPU ") else { return false }
        let digits = line[cpu.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }
        return (Int(digits) ?? 0) > 50 && line.contains(" memory, ")
    }
}
