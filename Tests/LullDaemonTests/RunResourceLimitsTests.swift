import Foundation
import LullAPI
import LullClient
import LullCore
import LullStore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Resource controls through the real daemon where it starts commands itself: a class's `nice`
/// reaches its commands, and the limits only a systemd unit enforces are refused with 422.
@Suite struct RunResourceLimitsTests {
    static let config = """
        [run]
        host = "process"

        [classes.background]
        nice = 6
        memory_max = 1073741824
        """

    @Test func aClassNicenessAppliesAndTheJobsOwnReplacesIt() async throws {
        try await withDaemon(config: Self.config) { daemon, client in
            // Field 19 of /proc/self/stat is the niceness (of the `cut` that reads it).
            let niceness = "cut -d' ' -f19 /proc/self/stat"
            for (flags, expected) in [([String](), "6\n"), (["--nice", "3"], "3\n")] {
                let submitted = try CommandRunner.run(
                    DaemonProcess.binary("lullctl"),
                    ["submit", "run", "--json", "--class", "background", "--socket", daemon.socketPath] + flags
                        + ["--", "sh", "-c", niceness]
                )
                #expect(submitted.status == 0, "\(submitted.stderr)")
                let job = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
                #expect(job.memoryMax == nil, "the view shows the job's own values, not its class's")
                let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
                #expect(done.result?.outputTail == expected, "\(flags): \(String(describing: done.result))")
            }
        }
    }

    @Test func limitsOnlyAUnitEnforcesAreRefusedWith422NamingTheField() async throws {
        try await withDaemon(config: Self.config) { daemon, client in
            let refused = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["submit", "run", "--memory-max", "2G", "--socket", daemon.socketPath, "--", "true"]
            )
            #expect(refused.status != 0)
            #expect(
                refused.stderr.contains(
                    "memory_max needs lulld to run commands as systemd units ([run] host = \"systemd\"); this lulld starts commands itself, where only nice applies"
                ),
                "\(refused.stderr)"
            )
            for (field, submission) in [
                ("cpu_weight", Self.run { $0.cpuWeight = 100 }), ("io_weight", Self.run { $0.ioWeight = 100 }),
                ("tasks_max", Self.run { $0.tasksMax = 16 }),
            ] {
                do {
                    _ = try await client.submit(submission)
                    Issue.record("\(field) was accepted")
                } catch LullClientError.api(let status, let detail) {
                    #expect(status == 422 && detail.code == "not_enforceable" && detail.field == field, "\(detail)")
                }
            }
            // lullctl reads a size with its unit; too small is a 400 naming the limit, on any host.
            let small = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["submit", "run", "--memory-max", "512K", "--socket", daemon.socketPath, "--", "true"]
            )
            #expect(small.status != 0 && small.stderr.contains("memory_max is 524288"), "\(small.stderr)")
            let unknown = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["submit", "run", "--memory-max", "2X", "--socket", daemon.socketPath, "--", "true"]
            )
            #expect(unknown.status != 0 && unknown.stderr.contains("unknown unit \"X\""), "\(unknown.stderr)")
            // A unit job needs the systemd host too.
            let unitJob = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["submit", "run", "--unit", "backup.service", "--socket", daemon.socketPath]
            )
            #expect(
                unitJob.status != 0
                    && unitJob.stderr.contains(
                        "unit needs lulld to run jobs through systemd ([run] host = \"systemd\")"
                    ),
                "\(unitJob.stderr)"
            )
            do {
                _ = try await client.submit(Self.run { $0.memoryMax = 4096 })
                Issue.record("4096 bytes accepted")
            } catch LullClientError.api(let status, let detail) {
                #expect(status == 400 && detail.field == "memory_max" && detail.message.contains("1 MiB"))
            }
            // None was stored.
            #expect(try await client.list().jobs.isEmpty)
        }
    }

    /// A job stored with limits (as a systemd host accepts it) shows them in `lullctl show`.
    @Test func showPrintsARunJobsLimits() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            #expect(daemon.stop() == 0)
            let resources = RunResources(cpuWeight: 200, memoryMax: 2 << 30, ioWeight: 50, tasksMax: 64)
            let stored = try await SQLiteJobStore(path: daemon.stateDirectory + "/lull.sqlite").insert([
                NewJob(
                    owner: OwnerID(getuid()),
                    spec: JobSpec(.run(RunJob(argv: ["true"], nice: 4, resources: resources).prepared())),
                    createdAt: Date()
                )
            ])
            try daemon.start()
            let id = String(stored[0].id.rawValue)
            let show = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["show", id, "--socket", daemon.socketPath]
            )
            #expect(show.status == 0, "\(show.stderr)")
            for words in ["nice", "cpu weight", "200", "memory max", "2.0 GiB (2147483648)", "io weight", "tasks max"] {
                #expect(show.stdout.contains(words), "\(words): \(show.stdout)")
            }
            let view = try await client.job(stored[0].id.rawValue)
            #expect(view.memoryMax == 2 << 30 && view.tasksMax == 64)
        }
    }

    static func run(_ change: (inout JobSubmission) -> Void) -> JobSubmission {
        var submission = JobSubmission(kind: .run, url: "", argv: ["true"])
        change(&submission)
        return submission
    }
}
