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
            let pid = try await commandPID(of: id, client: client)
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

    /// Two pauses at once: the second once found the job not yet marked frozen, froze it too,
    /// lost the race for the store and thawed the group the first had frozen, so the command ran
    /// on while the job said `paused`.
    @Test func twoPausesAtOnceLeaveTheCommandFrozen() async throws {
        try await withDaemon { daemon, client in
            let (id, pid) = try await busyLoop(daemon, client)
            // The race is narrow (the first pause's commit): a few rounds to meet it.
            for round in 1...8 {
                let answers = await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<2 { group.addTask { (try? await client.pause(id)) != nil } }
                    return await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(answers.filter { $0 }.count == 1, "round \(round): one pause taken, one refused: \(answers)")
                #expect(try await client.job(id).state == .paused)
                let frozenAt = processCPU(pid)
                try await Task.sleep(for: .milliseconds(300))
                #expect(processState(pid) == "T", "round \(round): still stopped: \(processState(pid) ?? "gone")")
                #expect(processCPU(pid) == frozenAt, "round \(round): no CPU while paused")
                _ = try await client.resume(id)
            }
            _ = try await client.cancel(id)
        }
    }

    /// A paused command is not sampled: before, the sampler went on waking lulld every progress
    /// interval for as long as the job stayed paused, for readings it then threw away.
    @Test func aPausedCommandDoesNotKeepTheDaemonAwake() async throws {
        try await withDaemon(config: "[transfers]\nprogress_interval = 0.1\n") { daemon, client in
            let (id, _) = try await busyLoop(daemon, client)
            _ = try await client.pause(id)
            try await Task.sleep(for: .milliseconds(500))
            let switches = ThreadCounters.voluntarySwitches(pid: daemon.pid)
            try await ThreadCounters.watch([switches], for: .seconds(3))
            #expect(switches.total <= 4, "lulld woke \(switches.total) times in 3 s with only a paused job")
            #expect(try await client.job(id).usage?.cpuPercent == 0, "a stopped group uses no CPU")
            // Resumed, it is sampled again.
            let cursor = try await client.events(after: 0).lastSeq
            _ = try await client.resume(id)
            try await awaitEvent(client: client, after: cursor, timeout: .seconds(10), "a sample after the resume") {
                $0.jobId == id && $0.type == .progress && $0.usage != nil
            }
            _ = try await client.cancel(id)
        }
    }

    /// A frozen command can still end (killed from outside), and its end cannot be recorded over
    /// the pause: lulld says so in its log (it said nothing), the job stays paused, and a resume
    /// runs it again.
    @Test func anAttemptEndingWhilePausedIsLoggedAndAResumeRunsItAgain() async throws {
        try await withDaemon { daemon, client in
            let job = try await client.submit(
                JobSubmission(kind: .run, url: "", argv: ["sh", "-c", "echo $$; exec sleep 100"])
            )
            // The process, not only the state: a pause before the spawn takes the usual path.
            let pid = try await commandPID(of: job.id, client: client)
            _ = try await client.pause(job.id)
            kill(pid, SIGKILL)
            try await awaitLog(daemon, "job \(job.id)'s attempt ended while it was paused (")
            #expect(try await client.job(job.id).state == .paused)
            let resumed = try await client.resume(job.id)
            #expect(resumed.state == .queued || resumed.state == .running, "\(resumed.state)")
            let again = try await awaitEvent(client: client, timeout: .seconds(15), "a second attempt") {
                $0.jobId == job.id && $0.type == .started && ($0.attempt ?? 0) >= 1 && $0.seq > 0
            }
            #expect(again.state == .running)
            _ = try await client.cancel(job.id)
        }
    }

    /// A total timeout is the time the command may run: a pause does not count. Before, a
    /// command paused past its timeout was killed while frozen, and its resume started it over.
    @Test func theTotalTimeoutDoesNotCountThePause() async throws {
        try await withDaemon { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .run,
                    url: "",
                    timeouts: TimeoutSettings(totalSeconds: 5),
                    argv: ["sh", "-c", "echo $$; exec sleep 100"]
                )
            )
            let pid = try await commandPID(of: job.id, client: client)
            _ = try await client.pause(job.id)
            // Paused for longer than the whole timeout: the command must still be there.
            try await Task.sleep(for: .seconds(6))
            #expect(kill(pid, 0) == 0, "the command was stopped at its timeout while paused")
            let cursor = try await client.events(after: 0).lastSeq
            let resumedAt = ContinuousClock.now
            _ = try await client.resume(job.id)
            let retry = try await awaitEvent(client: client, after: cursor, timeout: .seconds(10), "the timeout") {
                $0.jobId == job.id && $0.type == .retrying
            }
            #expect(retry.error?.code == "total_timeout", "\(String(describing: retry.error))")
            // It had run for a moment before the pause (up to the pid being read, slow on a busy
            // machine): most of its 5 s were still to come.
            #expect(ContinuousClock.now - resumedAt > .milliseconds(2500), "the rest of the timeout was not given")
            _ = try await client.cancel(job.id)
        }
    }

    /// A busy loop that prints its pid first: the job and the pid.
    private func busyLoop(_ daemon: DaemonProcess, _ client: LullClient) async throws -> (Int64, Int32) {
        let job = try await client.submit(
            JobSubmission(kind: .run, url: "", argv: ["sh", "-c", "echo $$; while :; do :; done"])
        )
        return (job.id, try await commandPID(of: job.id, client: client))
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
