import Foundation
import Logging
import LullCore
import Testing

@testable import LullTransfer

#if canImport(Glibc)
import Glibc
#endif

/// The run runner in process, without a daemon: the log's cap, a pause's signals, the
/// cancellation of an attempt, and a timeout.
@Suite struct RunTransferTests {
    let directory: String
    let logs: RunLogs

    init() throws {
        directory = NSTemporaryDirectory() + "lull-run-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        logs = RunLogs(stateDirectory: directory)
    }

    func job(_ id: Int64, _ argv: [String], grace: Double = 10, total: Double? = nil) -> Job {
        Job(
            id: JobID(id),
            owner: OwnerID(getuid()),
            spec: JobSpec(
                .run(RunJob(argv: argv, workingDirectory: directory, stopGraceSeconds: grace, outputTailBytes: 100)),
                timeouts: total.map { TimeoutSettings(totalSeconds: $0) }
            ),
            createdAt: Date()
        )
    }

    /// A group that cannot be recorded (here `running-groups` is a directory) does not stop the
    /// command, and the log says which group a crash would leave running and why.
    @Test func aGroupThatCannotBeRecordedIsLoggedAndTheCommandStillRuns() async throws {
        try FileManager.default.createDirectory(atPath: logs.groups, withIntermediateDirectories: true)
        let lines = RecordingLogHandler.Lines()
        let runner = RunTransfer(
            logs: logs,
            settings: RunSettings(),
            logger: Logger(label: "lulld") { _ in RecordingLogHandler(lines: lines) }
        )
        let result = try await runner.run(job(6, ["sh", "-c", "echo ran"]), context: TransferContext())
        #expect(result.exitCode == 0)
        #expect(try String(contentsOfFile: logs.path(of: JobID(6)), encoding: .utf8) == "ran\n")
        #expect(lines.text.contains("warning job 6: cannot record process group"), "\(lines.text)")
        // The same trouble for the next job is not told again (see LeftoverGroupsTests).
        _ = try await runner.run(job(7, ["true"]), context: TransferContext())
        #expect(!lines.text.contains("job 7:"), "\(lines.text)")
        #expect(lines.text.contains("\(logs.groups) (open: Is a directory)"), "\(lines.text)")
    }

    @Test func theLogKeepsItsNewestBytesWithinTheCap() async throws {
        let runner = RunTransfer(logs: logs, settings: RunSettings(maxLogBytes: 1000))
        // 20 lines of 500 bytes each: 10,000 bytes through a 1,000-byte log.
        let script = "i=0; while [ $i -lt 20 ]; do printf \"%0499d\\n\" $i; i=$((i+1)); done"
        let result = try await runner.run(job(1, ["sh", "-c", script]), context: TransferContext())
        let log = try Data(contentsOf: URL(fileURLWithPath: logs.path(of: JobID(1))))
        #expect(log.count <= 1000 && log.count >= 500, "\(log.count) bytes")
        let text = String(decoding: log, as: UTF8.self)
        #expect(text.hasSuffix(String(format: "%0499d\n", 19)))
        #expect(result.outputTail?.utf8.count == 100 && result.outputTail?.hasSuffix("0019\n") == true)
        await runner.discardResumeData(of: job(1, ["true"]))
        #expect(FileManager.default.fileExists(atPath: logs.path(of: JobID(1))), "a failed or ended job keeps its log")
        var cancelled = job(1, ["true"])
        cancelled.state = .cancelled
        await runner.discardResumeData(of: cancelled)
        #expect(!FileManager.default.fileExists(atPath: logs.path(of: JobID(1))))
    }

    @Test func aFrozenGroupUsesNoCPUUntilThawed() async throws {
        let runner = RunTransfer(logs: logs, settings: RunSettings())
        let attempt = Task {
            try await runner.run(job(2, ["sh", "-c", "while :; do :; done"], grace: 1), context: TransferContext())
        }
        var group: Int32?
        for _ in 0..<200 where group == nil {
            group = runner.running.processGroup(of: JobID(2))
            try await Task.sleep(for: .milliseconds(10))
        }
        let pid = try #require(group)
        try await Task.sleep(for: .milliseconds(200))
        #expect(runner.running.freeze(JobID(2)))
        try await Task.sleep(for: .milliseconds(100))
        let frozenAt = try Self.cpuTicks(pid)
        try await Task.sleep(for: .milliseconds(500))
        let frozenAfter = try Self.cpuTicks(pid)
        #expect(frozenAfter == frozenAt, "CPU time moved while frozen: \(frozenAt) → \(frozenAfter)")
        #expect(runner.running.thaw(JobID(2)))
        try await Task.sleep(for: .milliseconds(500))
        #expect(try Self.cpuTicks(pid) > frozenAfter, "CPU time moves again once thawed")

        // Frozen again, then cancelled: SIGTERM with SIGCONT ends it without waiting for the grace.
        runner.running.freeze(JobID(2))
        let started = ContinuousClock.now
        attempt.cancel()
        await #expect(throws: CancellationError.self) { try await attempt.value }
        #expect(ContinuousClock.now - started < .milliseconds(900))
        #expect(runner.running.processGroup(of: JobID(2)) == nil)
        #expect(!runner.running.freeze(JobID(2)), "a command that ended cannot be signalled")
    }

    /// A command that prints nothing makes no log, a later attempt starts its log afresh, and
    /// commands run one after another take the same slot for their process groups: no file is
    /// made and deleted per job.
    @Test func aSilentCommandMakesNoFileAndAnAttemptStartsItsLogAfresh() async throws {
        let runner = RunTransfer(logs: logs, settings: RunSettings())
        _ = try await runner.run(job(4, ["true"]), context: TransferContext())
        #expect(!FileManager.default.fileExists(atPath: logs.path(of: JobID(4))))
        _ = try await runner.run(job(5, ["sh", "-c", "echo first"]), context: TransferContext())
        #expect(try String(contentsOfFile: logs.path(of: JobID(5)), encoding: .utf8) == "first\n")
        let mode = try FileManager.default.attributesOfItem(atPath: logs.path(of: JobID(5)))[.posixPermissions]
        #expect(mode as? Int == 0o600)
        _ = try await runner.run(job(5, ["true"]), context: TransferContext())
        #expect(try String(contentsOfFile: logs.path(of: JobID(5)), encoding: .utf8) == "")
        let groups = try String(contentsOfFile: logs.groups, encoding: .utf8)
        #expect(groups.count == LeftoverGroups.slotSize, "one slot, taken in turn")
        #expect(groups.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "blanked when it ended")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: logs.directory).sorted() == ["5.log", "running-groups"]
        )
    }

    @Test func anAttemptPastItsTotalTimeoutIsStoppedAndRetryable() async throws {
        let runner = RunTransfer(logs: logs, settings: RunSettings())
        do {
            _ = try await runner.run(job(3, ["sleep", "30"], grace: 1, total: 0.3), context: TransferContext())
            Issue.record("a command past its timeout succeeded")
        } catch let failure as JobFailure {
            #expect(failure.code == "total_timeout" && failure.retryable)
            #expect(failure.result?.signal == 15, "SIGTERM ended it: \(String(describing: failure.result))")
        }
    }

    /// utime + stime of `pid`, in clock ticks, from /proc.
    static func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        return Int(fields[11])! + Int(fields[12])!
    }
}
