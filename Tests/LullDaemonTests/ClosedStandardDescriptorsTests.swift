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
        let daemon = try DaemonProcess(launcher: ["/bin/sh", "-c", "exec \"$@\" <&- >&- 2>&-", "sh"])
        defer { daemon.remove() }
        try daemon.start()
        for fd in 0...2 {
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(daemon.pid)/fd/\(fd)")
            #expect(target == "/dev/null", "lulld's descriptor \(fd) is \(target)")
        }
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        for nice in [nil, 5] {
            // With a nice value the command is started through fork, else through posix_spawn.
            let job = try await client.submit(
                JobSubmission(kind: .run, url: "", argv: ["sh", "-c", "echo out; echo err >&2"], nice: nice)
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.result?.outputTail == "out\nerr\n", "nice \(String(describing: nice))")
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
