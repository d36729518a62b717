import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A lulld that is not root starting commands itself: it runs another user's command only with
/// the rights to become that user and to stop its processes (CAP_SETUID, CAP_SETGID, CAP_KILL),
/// and the command gets none of the daemon's capabilities. The system unit's daemon has the
/// first two only: it refuses other users' commands at submission, saying what would run them.
@Suite(
    .serialized,
    .enabled(
        if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv"),
        "needs root and setpriv"
    )
)
struct RunDaemonRightsTests {
    static let daemonUid = 65533

    /// Ambient capabilities survive execve and a switch between two non-root uids, so without
    /// dropping them the owner's command could make itself root.
    @Test func anOwnersCommandGetsNoneOfTheDaemonsCapabilities() async throws {
        try await withUnprivilegedDaemon(capabilities: "+setuid,+setgid,+kill") { daemon, client in
            let submitted = try OwnershipTests().asNobody(
                [
                    "submit", "run", "--json", "--cwd", "/tmp", "--socket", daemon.socketPath, "--", "sh", "-c",
                    "id -u; grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status",
                ]
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let id = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id
            let job = try await awaitJob(id, in: [.failed, .succeeded], client: client)
            let lines = (job.result?.outputTail ?? "").split(separator: "\n").map(String.init)
            #expect(job.state == .succeeded && lines.first == "65534", "\(lines) \(String(describing: job.error))")
            let capabilities = lines.dropFirst()
            #expect(capabilities.count == 4, "\(lines)")
            for line in capabilities {
                #expect(line.hasSuffix("0000000000000000"), "\(line)")
            }
        }
    }

    /// The system unit's rights: without CAP_KILL it could start the command and never stop it.
    @Test func withoutTheRightToStopThemOtherUsersCommandsAreRefused() async throws {
        try await withUnprivilegedDaemon(capabilities: "+setuid,+setgid") { daemon, client in
            let refused = try OwnershipTests().asNobody(
                ["submit", "run", "--cwd", "/tmp", "--socket", daemon.socketPath, "--", "true"]
            )
            #expect(refused.status != 0)
            #expect(
                refused.stderr.contains("as uid \(Self.daemonUid), which can neither become uid 65534"),
                "\(refused.stderr)"
            )
            #expect(refused.stderr.contains("[run] host = \"systemd\""), "\(refused.stderr)")
            #expect(daemon.log().contains("for uid \(Self.daemonUid) only"), "the start-up line says so")
            // Its own uid's commands run.
            let own = try CommandRunner.run(
                "/usr/bin/setpriv",
                ["--reuid=\(Self.daemonUid)", "--regid=\(Self.daemonUid)", "--clear-groups", "--"]
                    + [DaemonProcess.binary("lullctl"), "submit", "run", "--json", "--cwd", "/tmp"]
                    + ["--socket", daemon.socketPath, "--", "id", "-u"]
            )
            #expect(own.status == 0, "\(own.stderr)")
            let id = try WireJSON.decoder().decode(JobView.self, from: Data(own.stdout.utf8)).id
            let job = try await awaitJob(id, in: [.failed, .succeeded], client: client)
            #expect(job.state == .succeeded, "\(String(describing: job.error))")
            #expect(job.result?.outputTail == "\(Self.daemonUid)\n")
        }
    }

    /// lulld as `daemonUid`, with `capabilities` inheritable and ambient, as a unit's
    /// `AmbientCapabilities=` gives them.
    /// Without the rights to take on others' identities, lulld must not do their file work with
    /// its own: nobody's fetch into a directory only lulld's user may write fails
    /// `permission_denied`, and nothing is written there.
    @Test func aDaemonThatCannotSwitchDoesNoFileWorkForOthers() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/f", Array("content".utf8))
        try await withUnprivilegedDaemon(capabilities: "-all") { daemon, client in
            let closed = daemon.directory.appendingPathComponent("lulld-only").path
            try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: true)
            chmod(closed, 0o700)
            chown(closed, uid_t(Self.daemonUid), gid_t(Self.daemonUid))
            let submitted = try OwnershipTests().asNobody(
                ["submit", "fetch", server.url("/f"), "-o", closed + "/f", "--json", "--socket", daemon.socketPath]
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let id = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id
            let job = try await awaitJob(id, in: [.failed, .succeeded], client: client)
            #expect(job.state == .failed && job.error?.code == "permission_denied", "\(String(describing: job.error))")
            #expect(try FileManager.default.contentsOfDirectory(atPath: closed).isEmpty)
        }
    }

    func withUnprivilegedDaemon(
        capabilities: String,
        _ body: (DaemonProcess, LullClient) async throws -> Void
    ) async throws {
        let daemon = try DaemonProcess(
            config: "[daemon]\nsocket_mode = \"0666\"\n",
            launcher: [
                "/usr/bin/setpriv", "--reuid=\(Self.daemonUid)", "--regid=\(Self.daemonUid)", "--clear-groups",
                "--inh-caps=\(capabilities)", "--ambient-caps=\(capabilities)", "--",
            ]
        )
        defer { daemon.remove() }
        let socketDirectory = URL(fileURLWithPath: daemon.socketPath).deletingLastPathComponent().path
        for (path, mode) in [(daemon.stateDirectory, mode_t(0o700)), (socketDirectory, mode_t(0o755))] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            chmod(path, mode)
            chown(path, uid_t(Self.daemonUid), gid_t(Self.daemonUid))
        }
        // Its READY=1 cannot reach the test's notification socket (root's, and lulld is not
        // root here): it is ready once its socket answers.
        try? daemon.start(timeout: .seconds(1))
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        for _ in 0..<200 {
            if (try? await client.status()) != nil { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        do {
            try await body(daemon, client)
        } catch {
            print("lulld log:\n\(daemon.log())")
            throw error
        }
    }
}
