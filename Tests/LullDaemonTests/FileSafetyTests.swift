import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The daemon runs as root here (as a system instance would); clients run as another uid
/// through setpriv. Every file a job touches must be touched with the client's rights.
@Suite(
    .enabled(if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv"), "needs root and setpriv")
)
struct FileSafetyTests {
    let nobody: UInt32 = 65534

    func asNobody(_ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run(
            "/usr/bin/setpriv",
            ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--", DaemonProcess.binary("lullctl")]
                + arguments
        )
    }

    func submitAsNobody(_ arguments: [String], socket: String) throws -> JobView {
        let result = try asNobody(["submit"] + arguments + ["--json", "--socket", socket])
        guard result.status == 0 else { throw TimedOut(description: "submit failed: \(result.stderr)") }
        return try WireJSON.decoder().decode(JobView.self, from: Data(result.stdout.utf8))
    }

    static let config = fastRetries + "\n[daemon]\nsocket_mode = \"0666\"\n"

    @Test func anotherUidCannotUploadMyPrivateFile() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/up", .init())
        try await withDaemon(config: Self.config) { daemon, client in
            let secret = daemon.directory.appendingPathComponent("secret.txt").path
            try "root's secret\n".write(toFile: secret, atomically: true, encoding: .utf8)
            chmod(secret, 0o600)
            let refused = try asNobody([
                "submit", "upload", server.url("/up"), "-f", secret, "--socket", daemon.socketPath,
            ])
            #expect(
                refused.status == 6 && refused.stderr.contains("you may not read source \(secret)"),
                "\(refused.stderr)"
            )
            // Readable when submitted, private by the time it starts: the attempt checks again.
            chmod(secret, 0o644)
            let job = try submitAsNobody(
                ["upload", server.url("/up"), "-f", secret, "--not-before", "3s"],
                socket: daemon.socketPath
            )
            chmod(secret, 0o600)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .failed)
            #expect(done.error?.code == "permission_denied", "\(String(describing: done.error))")
            #expect(server.requests.isEmpty, "not a byte of the file may leave")
        }
    }

    @Test func anotherUidCannotFetchIntoADirectoryItCannotWrite() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/f", Array("data".utf8))
        try await withDaemon(config: Self.config) { daemon, client in
            let locked = daemon.directory.appendingPathComponent("root-only")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            chmod(locked.path, 0o755)
            let destination = locked.appendingPathComponent("planted").path
            let refused = try asNobody([
                "submit", "fetch", server.url("/f"), "-o", destination, "--socket", daemon.socketPath,
            ])
            #expect(
                refused.status == 6 && refused.stderr.contains("you may not write into directory \(locked.path)"),
                "\(refused.stderr)"
            )
            // Writable when submitted, locked by the time it starts: the attempt checks again.
            chmod(locked.path, 0o777)
            let job = try submitAsNobody(
                ["fetch", server.url("/f"), "-o", destination, "--not-before", "3s"],
                socket: daemon.socketPath
            )
            chmod(locked.path, 0o755)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .failed)
            #expect(done.error?.code == "permission_denied", "\(String(describing: done.error))")
            #expect(!FileManager.default.fileExists(atPath: destination))
            #expect(try FileManager.default.contentsOfDirectory(atPath: locked.path).isEmpty)
        }
    }

    @Test func aSymlinkPlantedAtTheDestinationIsReplacedNotFollowed() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/f", Array("downloaded\n".utf8))
        try await withDaemon(config: Self.config) { daemon, client in
            let shared = daemon.directory.appendingPathComponent("shared")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
            chmod(shared.path, 0o1777)
            let victim = daemon.directory.appendingPathComponent("victim.conf").path
            try "do not touch\n".write(toFile: victim, atomically: true, encoding: .utf8)
            let destination = shared.appendingPathComponent("out.txt").path
            try FileManager.default.createSymbolicLink(atPath: destination, withDestinationPath: victim)

            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/f"), destination: destination)
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(
                try String(contentsOfFile: victim, encoding: .utf8) == "do not touch\n",
                "the link's target is untouched"
            )
            let attributes = try FileManager.default.attributesOfItem(atPath: destination)
            #expect(attributes[.type] as? FileAttributeType == .typeRegular, "the link itself was replaced by the file")

            // A link planted where the staging file will go is refused outright.
            let second = shared.appendingPathComponent("second.txt").path
            let nextID = done.id + 1
            try FileManager.default.createSymbolicLink(
                atPath: shared.appendingPathComponent(".second.txt.lull-\(nextID).part").path,
                withDestinationPath: victim
            )
            let trap = try await client.submit(JobSubmission(kind: .fetch, url: server.url("/f"), destination: second))
            #expect(trap.id == nextID)
            let refused = try await awaitJob(trap.id, in: [.succeeded, .failed], client: client)
            #expect(refused.error?.code == "symlink_refused", "\(String(describing: refused.error))")
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "do not touch\n")
        }
    }

    @Test func destinationsOutsideTheAllowedDirectoriesAreRefused() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/f", Array("x".utf8))
        let allowed = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-allowed-\(UUID().uuidString.prefix(6))"
        )
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: allowed) }
        let config = fastRetries + "\nallowed_directories = [\"\(allowed.path)\"]\n"
        try await withDaemon(config: config) { daemon, client in
            let inside = allowed.appendingPathComponent("ok.txt").path
            let good = try await client.submit(JobSubmission(kind: .fetch, url: server.url("/f"), destination: inside))
            #expect(try await awaitJob(good.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            let outside = daemon.directory.appendingPathComponent("nope.txt").path
            let bad = try await client.submit(JobSubmission(kind: .fetch, url: server.url("/f"), destination: outside))
            let refused = try await awaitJob(bad.id, in: [.succeeded, .failed], client: client)
            #expect(refused.error?.code == "destination_not_allowed")
            #expect(refused.error?.message.contains("transfers.allowed_directories") == true)
            #expect(!FileManager.default.fileExists(atPath: outside))
        }
    }
}
