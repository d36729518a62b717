import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Run jobs from the real `lullctl` to the real daemon, which starts real processes: exit
/// statuses, output, accounting, retries, stops, and the owner's identity.
@Suite struct RunEndToEndTests {
    static let lullctl = DaemonProcess.binary("lullctl")

    func lullctl(_ arguments: [String], _ daemon: DaemonProcess) throws -> CommandResult {
        try CommandRunner.run(Self.lullctl, arguments + ["--socket", daemon.socketPath])
    }

    /// Submits with `lullctl submit run`, returns the job's id.
    func submit(_ arguments: [String], _ daemon: DaemonProcess) throws -> Int64 {
        // The socket before `--`: what follows it is the command's.
        let submitted = try CommandRunner.run(
            Self.lullctl,
            ["submit", "run", "--json", "--socket", daemon.socketPath] + arguments
        )
        #expect(submitted.status == 0, "\(submitted.stderr)")
        return try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id
    }

    @Test func exitStatusOutputAndWordsReachTheProgramVerbatim() async throws {
        try await withDaemon { daemon, client in
            let id = try submit(
                ["--env", "X=1", "--", "sh", "-c", #"echo hi-$X; printf '%s|' "$@"; exit 3"#, "sh", "$(id);x", "a b"],
                daemon
            )
            let job = try await awaitJob(id, in: [.failed, .succeeded], client: client)
            #expect(job.state == .failed)
            #expect(
                job.error?.code == "exit_status" && job.error?.retryable == false,
                "\(String(describing: job.error))"
            )
            #expect(job.result?.exitCode == 3 && job.result?.signal == nil)
            #expect(job.result?.outputTail == "hi-1\n$(id);x|a b|", "\(String(describing: job.result?.outputTail))")
            #expect(job.argv == ["sh", "-c", #"echo hi-$X; printf '%s|' "$@"; exit 3"#, "sh", "$(id);x", "a b"])
            #expect(job.environment == ["X": "1"])
            #expect(job.result?.accounting?.attempts == 1)

            let logs = try lullctl(["logs", String(id)], daemon)
            #expect(logs.status == 0 && logs.stdout == "hi-1\n$(id);x|a b|", "\(logs.stdout) \(logs.stderr)")
            let (status, body) = try curl(daemon.socketPath, "GET", "/v1/jobs/\(id)/output?offset=5")
            #expect(status == 200 && body == "$(id);x|a b|")
        }
    }

    @Test func logsFollowPrintsOutputAsItComesUntilTheJobEnds() async throws {
        try await withDaemon { daemon, client in
            let id = try submit(["--", "sh", "-c", "echo first; sleep 2; echo second"], daemon)
            // Still running when the follower starts, so "second" comes while it follows.
            #expect(try await client.job(id).state != .succeeded)
            let followed = try lullctl(["logs", String(id), "--follow", "--interval", "0.1"], daemon)
            #expect(followed.status == 0, "\(followed.stderr)")
            #expect(followed.stdout == "first\nsecond\n")
            #expect(try await client.job(id).state == .succeeded, "it returned once the job ended")
        }
    }

    @Test func aMissingProgramFailsClearly() async throws {
        try await withDaemon { daemon, client in
            let id = try submit(["--", "lull-no-such-program"], daemon)
            let job = try await awaitJob(id, in: [.failed, .succeeded], client: client)
            #expect(job.error?.code == "command_not_found" && job.error?.retryable == false)
            #expect(job.error?.message.contains("not on the job's PATH") == true, "\(String(describing: job.error))")
        }
    }

    @Test func cpuAndMemoryAreMeasured() async throws {
        try await withDaemon { daemon, client in
            let burn = try submit(
                ["--", "python3", "-c", "import time\nt=time.process_time()\nwhile time.process_time()-t<1: pass"],
                daemon
            )
            let hold = try submit(
                ["--", "python3", "-c", "b=bytearray(200<<20)\nimport time\ntime.sleep(0.2)"],
                daemon
            )
            let burned = try await awaitJob(burn, in: [.failed, .succeeded], client: client)
            let held = try await awaitJob(hold, in: [.failed, .succeeded], client: client)
            #expect(burned.state == .succeeded && held.state == .succeeded, "\(String(describing: held.error))")
            let cpu = try #require(burned.result?.cpuSeconds)
            let memory = try #require(held.result?.memoryPeakBytes)
            print("run accounting: cpu_seconds \(cpu); memory_peak_bytes \(memory) (\(memory >> 20) MiB)")
            #expect(cpu >= 0.8)
            #expect(memory >= 200 << 20)
        }
    }

    @Test func exit75IsRetriedUnderTheRetryPolicy() async throws {
        try await withDaemon(config: fastRetries) { daemon, client in
            let counter = daemon.directory.appendingPathComponent("tries").path
            let id = try submit(
                ["--max-attempts", "3", "--", "sh", "-c", "echo x >> \(counter); exit 75"],
                daemon
            )
            let job = try await awaitJob(id, in: [.failed, .succeeded], client: client)
            #expect(job.state == .failed && job.attempts == 3, "\(job.state) after \(job.attempts)")
            #expect(job.error?.retryable == true && job.result?.exitCode == 75)
            #expect(try String(contentsOfFile: counter, encoding: .utf8) == "x\nx\nx\n")
        }
    }

    @Test func cancelEndsTheWholeProcessGroup() async throws {
        try await withDaemon { daemon, client in
            let pidFile = daemon.directory.appendingPathComponent("pid").path
            let id = try submit(["--", "sh", "-c", "echo $$ > \(pidFile); sleep 60 & sleep 60"], daemon)
            let group = try await Self.pid(in: pidFile)
            #expect(kill(-group, 0) == 0, "the group runs")
            let cancelled = try lullctl(["cancel", String(id)], daemon)
            #expect(cancelled.status == 0, "\(cancelled.stderr)")
            #expect(try await client.job(id).state == .cancelled)
            #expect(Self.living(inGroup: group).isEmpty, "no process of the group is left")
            let (status, body) = try curl(daemon.socketPath, "GET", "/v1/jobs/\(id)/output")
            #expect(status == 200 && body.isEmpty, "a cancelled job's log goes with it")
        }
    }

    @Test func aCommandThatIgnoresSIGTERMIsKilledAfterItsGrace() async throws {
        try await withDaemon { daemon, client in
            let pidFile = daemon.directory.appendingPathComponent("pid").path
            let id = try submit(
                ["--stop-grace", "1", "--", "sh", "-c", "trap '' TERM; echo $$ > \(pidFile); sleep 60"],
                daemon
            )
            let group = try await Self.pid(in: pidFile)
            let started = ContinuousClock.now
            #expect(try lullctl(["cancel", String(id)], daemon).status == 0)
            let took = ContinuousClock.now - started
            print("cancel of a command ignoring SIGTERM took \(took)")
            #expect(took >= .milliseconds(900) && took < .seconds(5), "\(took)")
            #expect(Self.living(inGroup: group).isEmpty, "no process of the group is left")
            #expect(try await client.job(id).state == .cancelled)
        }
    }

    @Test(
        .enabled(
            if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv"),
            "needs root and setpriv"
        )
    )
    func anotherOwnersCommandRunsAsThatOwner() async throws {
        let config = "[daemon]\nsocket_mode = \"0666\"\n"
        try await withDaemon(config: config) { daemon, client in
            let submitted = try OwnershipTests().asNobody(
                [
                    "submit", "run", "--json", "--cwd", "/tmp", "--socket", daemon.socketPath, "--", "sh", "-c",
                    "id -u; id -g; id -G",
                ]
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let id = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id
            let job = try await awaitJob(id, in: [.failed, .succeeded], client: client)
            #expect(job.ownerUid == 65534 && job.state == .succeeded, "\(String(describing: job.error))")
            let lines = (job.result?.outputTail ?? "").split(separator: "\n")
            #expect(lines.first == "65534", "\(lines)")
            #expect(lines.dropFirst().first == "65534" || lines.dropFirst().first.map { $0 != "0" } == true, "\(lines)")
            #expect(!(lines.last ?? "").split(separator: " ").contains("0"), "no group of root's: \(lines)")
            // Root's run job: the other uid can neither read its output nor stop it.
            let mine = try await client.submit(JobSubmission(kind: .run, url: "", argv: ["echo", "secret"]))
            _ = try await awaitJob(mine.id, in: [.succeeded, .failed], client: client)
            let peek = try OwnershipTests().asNobody(["logs", String(mine.id), "--socket", daemon.socketPath])
            #expect(peek.status == 4 && !peek.stdout.contains("secret"), "\(peek.status) \(peek.stdout)")
            #expect(
                try OwnershipTests().asNobody(["cancel", String(mine.id), "--socket", daemon.socketPath]).status == 4
            )

            // Its home does not exist: the default directory is refused by name.
            let homeless = try OwnershipTests().asNobody(
                ["submit", "run", "--json", "--socket", daemon.socketPath, "--", "true"]
            )
            let other = try WireJSON.decoder().decode(JobView.self, from: Data(homeless.stdout.utf8)).id
            let failed = try await awaitJob(other, in: [.failed, .succeeded], client: client)
            let home = getpwuid(65534).map { String(cString: $0.pointee.pw_dir) } ?? "/"
            if !FileManager.default.fileExists(atPath: home) {
                #expect(failed.error?.code == "working_directory_unavailable", "\(String(describing: failed.error))")
            }
        }
    }

    @Test func aCommandACrashedDaemonLeftRunningIsEndedBeforeItsJobRunsAgain() async throws {
        try await withDaemon { daemon, client in
            let pids = daemon.directory.appendingPathComponent("pids").path
            let id = try submit(["--", "sh", "-c", "echo $$ >> \(pids); sleep 60"], daemon)
            let first = try await Self.pid(in: pids)
            daemon.kill()
            #expect(!Self.living(inGroup: first).isEmpty, "kill -9 of lulld leaves the command running")
            try daemon.start()
            // Requeued at start, it runs again: the first command is ended before the second starts.
            var second: Int32?
            for _ in 0..<400 where second == nil {
                let lines = (try? String(contentsOfFile: pids, encoding: .utf8))?.split(separator: "\n") ?? []
                second = lines.count > 1 ? Int32(lines[1]) : nil
                try await Task.sleep(for: .milliseconds(25))
            }
            let group = try #require(second)
            #expect(Self.living(inGroup: first).isEmpty, "the leftover group was ended")
            #expect(!Self.living(inGroup: group).isEmpty)
            #expect(try await client.cancel(id).state == .cancelled)
            #expect(Self.living(inGroup: group).isEmpty)
        }
    }

    /// The processes of process group `group` that are not zombies. A killed command's
    /// children are reparented to PID 1, which reaps them when it gets round to it (in a
    /// container, not at once): until then `kill(-group, 0)` still finds them.
    static func living(inGroup group: Int32) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { Int32($0) != nil }.compactMap { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After the command name: state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[2]) == group, fields[0] != "Z" else { return nil }
            return "\(pid) \(fields[0])"
        }
    }

    /// The pid a command wrote to `path`, once it has.
    static func pid(in path: String) async throws -> Int32 {
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return pid
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw TimedOut(description: "no pid in \(path)")
    }
}
