import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// lulld started without descriptors 0–2 (`lulld <&- >&- 2>&-`) opens /dev/null on them first.
/// Else the first descriptors it opens take those numbers — the event loop's epoll, eventfd and
/// timerfd, as it was — and what is written to "stdout" or "stderr" (a log line) goes to them;
/// opened in another order, a job's output pipe or the store could have been there.
@Suite struct ClosedStandardDescriptorsTests {
    @Test func aDaemonStartedWithoutThemHasDevNullThereAndKeepsAJobsOutput() async throws {
        let daemon = try DaemonProcess(
            config: SpawnPaths.config,
            launcher: ["/bin/sh", "-c", "exec \"$@\" <&- >&- 2>&-", "sh"]
        )
        defer { daemon.remove() }
        try daemon.start()
        for fd in 0...2 {
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(daemon.pid)/fd/\(fd)")
            #expect(target == "/dev/null", "lulld's descriptor \(fd) is \(target)")
        }
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let argv = ["sh", "-c", "echo out; echo err >&2"]
        for (path, output) in try await SpawnPaths.outputs(of: argv, daemon: daemon, client: client) {
            #expect(output == "out\nerr\n", "\(path)")
        }
        let integrity = try CommandRunner.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('pragma integrity_check').fetchone()[0])",
                daemon.stateDirectory + "/lull.sqlite",
            ]
        )
        #expect(integrity.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(integrity)")
    }
}
