import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A run job whose working directory is on a mount that stopped answering (a dead NFS server,
/// a hung FUSE daemon) can still be cancelled, and ends at its total timeout: lulld gives up
/// the start, wherever it hangs — its own look at the directory before the launch, or the
/// child's chdir between fork and exec. Before, the attempt's thread waited in the kernel, and
/// the job stayed `running`, its slot taken, until the mount came back.
/// `Tests/Fixtures/hung_fuse.py` is the mount: it answers a given number of lookups, then none.
@Suite(
    .serialized,
    .enabled(
        if: getuid() == 0 && FileManager.default.fileExists(atPath: "/dev/fuse"),
        "needs root and /dev/fuse"
    )
)
struct RunHungMountTests {
    /// Where lulld hangs: 0 lookups answered, in its own stat of the directory; 1, in the
    /// child's chdir. The command runs as lulld's own user (vfork), or, where the tests run as
    /// root, as nobody (fork, whose wait for the exec watches the stop and the timeout itself).
    static let cases: [(answered: Int, asNobody: Bool)] =
        [(0, false), (1, false)]
        + (getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv")
            ? [(1, true)] : [])

    @Test(arguments: Self.cases)
    func aJobStuckEnteringItsDirectoryCanBeCancelled(answered: Int, asNobody: Bool) async throws {
        try await withHungMount(answering: answered) { directory, daemon, client in
            let id = try await submit(
                directory: directory,
                asNobody: asNobody,
                timeoutSeconds: nil,
                daemon: daemon,
                client: client
            )
            _ = try await awaitJob(id, in: [.running], client: client, timeout: .seconds(20))
            let cancelling = ContinuousClock.now
            _ = try await client.cancel(id)
            // Without the give-up it never ends (the mount never answers); the bound is loose for
            // a loaded machine.
            let done = try await awaitJob(id, in: [.cancelled], client: client, timeout: .seconds(30))
            #expect(done.state == .cancelled)
            #expect(ContinuousClock.now - cancelling < .seconds(20))
        }
    }

    @Test(arguments: Self.cases)
    func aJobStuckEnteringItsDirectoryEndsAtItsTotalTimeout(answered: Int, asNobody: Bool) async throws {
        try await withHungMount(answering: answered) { directory, daemon, client in
            let id = try await submit(
                directory: directory,
                asNobody: asNobody,
                timeoutSeconds: 2,
                daemon: daemon,
                client: client
            )
            let done = try await awaitJob(id, in: [.failed, .succeeded], client: client, timeout: .seconds(30))
            #expect(done.state == .failed)
            #expect(done.error?.code == "total_timeout", "\(String(describing: done.error))")
            // The daemon is not worse for it: another job runs.
            let next = try await client.submit(JobSubmission(kind: .run, url: "", argv: ["true"]))
            let ran = try await awaitJob(next.id, in: [.succeeded, .failed], client: client, timeout: .seconds(20))
            #expect(ran.state == .succeeded)
        }
    }

    /// A start given up holds its thread until the mount answers, and the job's next start
    /// would hang the same way and hold one more: it is refused while the first is out. Before,
    /// each retry left another thread waiting in the kernel.
    @Test func aJobWhoseLastStartIsStillStuckIsNotStartedAgain() async throws {
        try await withHungMount(answering: 0) { directory, daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .run,
                    url: "",
                    retry: RetrySettings(maxAttempts: 3, baseSeconds: 0.05, capSeconds: 0.1),
                    timeouts: TimeoutSettings(totalSeconds: 1),
                    argv: ["true"],
                    workingDirectory: directory
                )
            )
            let done = try await awaitJob(job.id, in: [.failed, .succeeded], client: client, timeout: .seconds(30))
            #expect(done.state == .failed)
            #expect(done.attempts == 3)
            #expect(done.error?.code == "start_stuck", "\(String(describing: done.error))")
            let events = try await client.events(after: 0).events.filter { $0.jobId == job.id && $0.type == .retrying }
            #expect(events.map(\.error?.code) == ["total_timeout", "start_stuck"])
        }
    }

    /// `true` in `directory`, once, with a total timeout where given; as nobody through lullctl.
    private func submit(
        directory: String,
        asNobody: Bool,
        timeoutSeconds: Int?,
        daemon: DaemonProcess,
        client: LullClient
    ) async throws -> Int64 {
        guard asNobody else {
            return try await client.submit(
                JobSubmission(
                    kind: .run,
                    url: "",
                    retry: RetrySettings(maxAttempts: 1),
                    timeouts: timeoutSeconds.map { TimeoutSettings(totalSeconds: Double($0)) },
                    argv: ["true"],
                    workingDirectory: directory
                )
            ).id
        }
        let timeout = timeoutSeconds.map { ["--timeout", "\($0)s"] } ?? []
        let submitted = try FileSafetyTests().asNobody(
            ["submit", "run", "--cwd", directory, "--max-attempts", "1"] + timeout
                + ["--json", "--socket", daemon.socketPath, "--", "true"]
        )
        try #require(submitted.status == 0, "submit as nobody: \(submitted.stderr)")
        return try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id
    }

    private func withHungMount(
        answering answered: Int,
        _ body: (String, DaemonProcess, LullClient) async throws -> Void
    ) async throws {
        let mountpoint = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-hung-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: mountpoint, withIntermediateDirectories: true)
        let daemon = try DaemonProcess(config: SpawnPaths.config)
        defer { daemon.remove() }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let fixture = PythonExample.repository.appendingPathComponent("Tests/Fixtures/hung_fuse.py").path
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [fixture, mountpoint, String(answered)]
        let ready = Pipe()
        server.standardOutput = ready
        try server.run()
        // Before lulld is stopped: a lookup the server has read but not answered holds a thread
        // even against SIGKILL ("wait it out"), and lulld would never exit. Closing /dev/fuse
        // ends every such request.
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
            umount2(mountpoint, Int32(MNT_DETACH))
            try? FileManager.default.removeItem(atPath: mountpoint)
        }
        let line = ready.fileHandleForReading.availableData
        try #require(String(decoding: line, as: UTF8.self).hasPrefix("ready"), "the FUSE server did not mount")
        try await body(mountpoint + "/sub", daemon, client)
    }
}
