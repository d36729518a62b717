import Foundation
import GRDB
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A fetched file's permission bits are the job's (`mode`, else 0644; lullctl sends 0666 less
/// the caller's umask), never the daemon's umask: under its unit the daemon runs with
/// `UMask=0077`, which made every download 0600. A partial file stays private until complete.
@Suite(.timeLimit(.minutes(2)))
struct FileModeTests {
    static func mode(of path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }

    @Test func fetchedFilesGetTheJobsModeNotTheDaemonsUmask() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/page.html", Array("<p>served by a web server</p>\n".utf8))
        server.route(
            "/big.iso",
            .init(body: TestHTTPServer.bytes(count: 1 << 20), etag: "\"v1\"", faults: [.stallAfter(4096)])
        )
        // As under the unit: the daemon's umask takes everything from group and others.
        let daemon = try DaemonProcess(
            config: fastRetries,
            launcher: ["/bin/sh", "-c", "umask 077; exec \"$0\" \"$@\""]
        )
        defer { daemon.remove() }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let directory = daemon.directory

        let plain = try await client.submit(
            JobSubmission(
                kind: .fetch,
                url: server.url("/page.html"),
                destination: directory.appendingPathComponent("plain.html").path
            )
        )
        #expect(plain.mode == "0644", "the default is shown")
        let given = try await client.submit(
            JobSubmission(
                kind: .fetch,
                url: server.url("/page.html"),
                destination: directory.appendingPathComponent("given.html").path,
                mode: "640"
            )
        )
        #expect(given.mode == "0640")
        for job in [plain, given] {
            #expect(try await awaitJob(job.id, in: [.succeeded, .failed], client: client).state == .succeeded)
        }
        #expect(Self.mode(of: directory.appendingPathComponent("plain.html").path) == 0o644)
        #expect(Self.mode(of: directory.appendingPathComponent("given.html").path) == 0o640)

        // lullctl asks for what `curl -o` would make under the caller's umask.
        let viaLullctl = directory.appendingPathComponent("shared.html").path
        let submitted = try CommandRunner.run(
            "/bin/sh",
            [
                "-c", "umask 002; exec \"$0\" \"$@\"", DaemonProcess.binary("lullctl"), "submit", "fetch",
                server.url("/page.html"), "-o", viaLullctl, "--json", "--socket", daemon.socketPath,
            ]
        )
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let shared = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
        #expect(shared.mode == "0664")
        #expect(try await awaitJob(shared.id, in: [.succeeded, .failed], client: client).state == .succeeded)
        #expect(Self.mode(of: viaLullctl) == 0o664)

        // Part-way, the staging file is the owner's alone, whatever the job's mode.
        let big = try await client.submit(
            JobSubmission(
                kind: .fetch,
                url: server.url("/big.iso"),
                destination: directory.appendingPathComponent("big.iso").path,
                mode: "0644"
            )
        )
        try await awaitEvent(client: client, "job \(big.id) part-way") {
            $0.jobId == big.id && ($0.progress?.bytesDone ?? 0) >= 4096
        }
        let staging = directory.appendingPathComponent(".big.iso.lull-\(big.id).part").path
        #expect(Self.mode(of: staging) == 0o600)
        _ = try await client.cancel(big.id)
    }

    /// A fetch stored before jobs had modes has none in its spec. It keeps what it got then, the
    /// daemon's umask, so an upgrade does not widen the files of existing (periodic) jobs.
    @Test func aJobStoredBeforeModesKeepsTheDaemonsUmask() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/report.csv", Array("a,b\n1,2\n".utf8))
        let daemon = try DaemonProcess(
            config: holdEverything,
            launcher: ["/bin/sh", "-c", "umask 027; exec \"$0\" \"$@\""]
        )
        defer { daemon.remove() }
        try daemon.start()
        let destination = daemon.directory.appendingPathComponent("report.csv").path
        let stored: JobView
        do {
            let client = LullClient(socketPath: daemon.socketPath)
            defer { Task { await client.shutdown() } }
            stored = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/report.csv"), destination: destination)
            )
            #expect(stored.mode == "0644")
        }
        #expect(daemon.stop() == 0)

        // The row as the version before modes wrote it, and a config that lets it run.
        let store = daemon.stateDirectory + "/lull.sqlite"
        let queue = try DatabaseQueue(path: store)
        let stillHasMode = try await queue.write { db in
            try db.execute(
                sql: "UPDATE jobs SET spec = json_remove(spec, '$.fileMode') WHERE id = ?",
                arguments: [stored.id]
            )
            return try Bool.fetchOne(
                db,
                sql: "SELECT spec LIKE '%fileMode%' FROM jobs WHERE id = ?",
                arguments: [stored.id]
            )
        }
        try queue.close()
        #expect(stillHasMode == false)
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "max_concurrent = 0", with: "max_concurrent = 2")
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)

        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let legacy = try await awaitJob(stored.id, in: [.succeeded, .failed], client: client)
        #expect(legacy.state == .succeeded, "\(legacy.error?.message ?? "")")
        #expect(legacy.mode == nil, "a job stored without a mode shows none")
        #expect(Self.mode(of: destination) == 0o640, "0666 less the daemon's umask 027")
    }

    @Test func aModeThatIsNotOneIsRefusedNamingTheField() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("f").path
            for bad in ["0999", "4755", "rw-r--r--", "64", "", "00644"] {
                do {
                    _ = try await client.submit(
                        JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/f", destination: destination, mode: bad)
                    )
                    Issue.record("mode \"\(bad)\" was taken")
                } catch LullClientError.api(let status, let detail) {
                    #expect(status == 400)
                    #expect(detail.field == "mode")
                    #expect(detail.message.contains("octal digits from 0000 to 0777"), "\(detail.message)")
                }
            }
            do {
                _ = try await client.submit(
                    JobSubmission(kind: .push, url: "http://127.0.0.1:9/p", body: "x", mode: "0644")
                )
                Issue.record("a push took a file mode")
            } catch LullClientError.api(let status, let detail) {
                #expect(status == 400)
                #expect(detail.field == "mode")
            }
        }
    }
}
