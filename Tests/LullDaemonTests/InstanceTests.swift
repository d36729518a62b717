import Foundation
import LullAPI
import LullClient
import LullCore
import LullDaemon
import LullTestSupport
import Testing

@Suite struct InstanceTests {
    @Test func aSecondDaemonIsRefusedWithAClearMessage() async throws {
        try await withDaemon { daemon, client in
            let otherState = daemon.directory.appendingPathComponent("other").path
            let sameSocket = try CommandRunner.run(
                DaemonProcess.binary("lulld"),
                ["--state-dir", otherState, "--socket", daemon.socketPath]
            )
            #expect(sameSocket.status != 0)
            #expect(sameSocket.stderr.contains("already listening on \(daemon.socketPath)"), "\(sameSocket.stderr)")

            let sameState = try CommandRunner.run(
                DaemonProcess.binary("lulld"),
                [
                    "--state-dir", daemon.stateDirectory, "--socket",
                    daemon.directory.appendingPathComponent("b.sock").path,
                ]
            )
            #expect(sameState.status != 0)
            #expect(sameState.stderr.contains("already running"), "\(sameState.stderr)")
            // The first daemon is untouched by either attempt.
            #expect(try await client.status().pid == daemon.pid)
        }
    }

    @Test func aStaleSocketFromACrashIsReplaced() async throws {
        try await withDaemon { daemon, client in
            daemon.kill()
            #expect(FileManager.default.fileExists(atPath: daemon.socketPath), "kill -9 leaves the socket file behind")
            try daemon.start()
            #expect(try await client.status().pid == daemon.pid)
        }
    }

    @Test func lullctlExplainsWhenTheDaemonIsNotRunning() throws {
        let result = try CommandRunner.run(
            DaemonProcess.binary("lullctl"),
            ["status", "--socket", "/tmp/lull-no-such.sock"]
        )
        #expect(result.status == 3)
        #expect(result.stderr.contains("lulld is not running"))
        #expect(
            result.stderr.contains("Start it with `lulld` (or `systemctl --user start lulld`"),
            "a user instance's socket: \(result.stderr)"
        )

        // --socket first, as with other tools' global flags, means the same.
        let socketFirst = try CommandRunner.run(
            DaemonProcess.binary("lullctl"),
            ["--socket", "/tmp/lull-no-such.sock", "status"]
        )
        #expect(socketFirst.status == 3, "\(socketFirst.stderr)")
        #expect(socketFirst.stderr.contains("no socket at /tmp/lull-no-such.sock"))

        // The system unit's socket gets the system service's hint.
        let system = "/run/lull/lull.sock"
        guard !FileManager.default.fileExists(atPath: system) else { return }
        let asSystem = try CommandRunner.run(DaemonProcess.binary("lullctl"), ["status", "--socket", system])
        #expect(asSystem.status == 3)
        #expect(asSystem.stderr.contains("Start it with `systemctl start lulld`"), "\(asSystem.stderr)")
    }

    @Test func checkConfigReportsFileLineAndKey() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lull-bad-\(UUID()).toml").path
        try "[limits]\nmax_concurrent = 2\nmax_concurent = 3\n\n[daemon]\nsocket_mode = \"rw\"\n".write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--check-config", "--config", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):3: limits.max_concurent: unknown key"), "\(result.stderr)")
        #expect(result.stderr.contains("\(path):6: daemon.socket_mode"), "\(result.stderr)")
    }

    @Test func dropInsApplyInNameOrderOverTheMainFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lull-dropins-\(UUID())")
        let dropIns = directory.appendingPathComponent("lull.d")
        try FileManager.default.createDirectory(at: dropIns, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let main = directory.appendingPathComponent("lull.toml").path
        try "[classes.background]\nmin_battery = 30\nmax_concurrent = 2\n".write(
            toFile: main,
            atomically: true,
            encoding: .utf8
        )
        try "[classes.background]\nmin_battery = 50\n".write(
            to: dropIns.appendingPathComponent("10-field.toml"),
            atomically: true,
            encoding: .utf8
        )
        try "[classes.background]\nmin_battery = 60\n".write(
            to: dropIns.appendingPathComponent("20-site.toml"),
            atomically: true,
            encoding: .utf8
        )
        try "not toml at all".write(to: dropIns.appendingPathComponent("README"), atomically: true, encoding: .utf8)

        let checked = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--check-config", "--config", main])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(
            checked.stdout.contains("10-field.toml: ok") && checked.stdout.contains("20-site.toml: ok"),
            "\(checked.stdout)"
        )

        let loaded = try ConfigLoader.loadWithDropIns(file: main)
        let background = try #require(loaded.policy.classPolicy(named: "background"))
        #expect(background.minBattery == 60, "the last drop-in wins")
        #expect(background.maxConcurrent == 2, "keys a drop-in leaves alone keep the main file's value")

        try "[classes.background]\nmin_batery = 5\n".write(
            to: dropIns.appendingPathComponent("30-typo.toml"),
            atomically: true,
            encoding: .utf8
        )
        let broken = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--check-config", "--config", main])
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("30-typo.toml:2: classes.background.min_batery"), "\(broken.stderr)")
    }

    @Test func retryCoversClassesLaterDropInsDefineAndFollowsFileOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lull-retry-\(UUID())")
        let dropIns = directory.appendingPathComponent("lull.d")
        try FileManager.default.createDirectory(at: dropIns, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let main = directory.appendingPathComponent("lull.toml").path
        try "[retry]\nmax_attempts = 1\n\n[classes.utility]\nmax_attempts = 3\nbackoff_cap = 50\n".write(
            toFile: main,
            atomically: true,
            encoding: .utf8
        )
        try "[classes.bulk]\nmax_concurrent = 1\n".write(
            to: dropIns.appendingPathComponent("50-bulk.toml"),
            atomically: true,
            encoding: .utf8
        )
        try "[retry]\ncap_seconds = 100\n\n[classes.bulk]\nbackoff_cap = 200\n".write(
            to: dropIns.appendingPathComponent("60-cap.toml"),
            atomically: true,
            encoding: .utf8
        )

        let checked = try CommandRunner.run(DaemonProcess.binary("lulld"), ["--check-config", "--config", main])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(
            checked.stdout == "\(main): ok\n\(dropIns.path)/50-bulk.toml: ok\n\(dropIns.path)/60-cap.toml: ok\n",
            "\(checked.stdout)"
        )

        let loaded = try ConfigLoader.loadWithDropIns(file: main)
        let bulk = try #require(loaded.policy.classPolicy(named: "bulk"))
        #expect(bulk.retry.maxAttempts == 1, "the main file's [retry] covers a class a drop-in defines")
        #expect(bulk.retry.backoffCap == 200, "a class's own key beats [retry] in the same file")
        #expect(bulk.retry.backoffBase == 30, "a key no file sets keeps the new-class value")
        let utility = try #require(loaded.policy.classPolicy(named: "utility"))
        #expect(utility.retry.maxAttempts == 3, "a class's own key beats [retry] in the same file")
        #expect(utility.retry.backoffCap == 100, "a later drop-in's [retry] replaces a class key of an earlier file")
        let standard = try #require(loaded.policy.classPolicy(named: "default"))
        #expect(standard.retry.maxAttempts == 1 && standard.retry.backoffCap == 100 && standard.retry.backoffBase == 10)
    }
}

/// Runs lullctl as another uid through setpriv, so the kernel's peer credentials differ for real.
@Suite(
    .enabled(if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv"), "needs root and setpriv")
)
struct OwnershipTests {
    let nobody = "65534"

    func asNobody(_ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run(
            "/usr/bin/setpriv",
            ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--", DaemonProcess.binary("lullctl")]
                + arguments
        )
    }

    @Test func anotherUidCannotSeeOrTouchMyJobs() async throws {
        let config = holdEverything + "\n[daemon]\nsocket_mode = \"0666\"\n"
        try await withDaemon(config: config) { daemon, client in
            let mine = try await client.submit(
                JobSubmission(kind: .fetch, url: "http://127.0.0.1/a", destination: "/tmp/a")
            )
            let socket = ["--socket", daemon.socketPath]

            let listed = try asNobody(["list", "--json"] + socket)
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(try WireJSON.decoder().decode(JobListView.self, from: Data(listed.stdout.utf8)).jobs.isEmpty)
            #expect(try asNobody(["show", String(mine.id)] + socket).status == 4)
            #expect(try asNobody(["cancel", String(mine.id)] + socket).status == 4)
            #expect(try asNobody(["pause", String(mine.id)] + socket).status == 4)
            #expect(try await client.job(mine.id).state == .queued, "the other uid's attempts changed nothing")

            let theirs = try asNobody(
                [
                    "submit", "fetch", "http://127.0.0.1/b", "-o", "/tmp/lull-theirs-\(UUID().uuidString.prefix(8))",
                    "--json",
                ] + socket
            )
            #expect(theirs.status == 0, "\(theirs.stderr)")
            let theirJob = try WireJSON.decoder().decode(JobView.self, from: Data(theirs.stdout.utf8))
            #expect(theirJob.ownerUid == 65534)
            // Root sees every owner's jobs; the other uid sees only its own.
            #expect(try await client.list().jobs.map(\.id) == [mine.id, theirJob.id])
            let theirList = try asNobody(["list", "--json"] + socket)
            #expect(
                try WireJSON.decoder().decode(JobListView.self, from: Data(theirList.stdout.utf8)).jobs.map(\.id) == [
                    theirJob.id
                ]
            )
            let theirEvents = try asNobody(["events", "--json"] + socket)
            #expect(!theirEvents.stdout.contains("\"job_id\":\(mine.id),"))
        }
    }

    @Test func anOwnersUnfinishedJobsAreCappedByTheQuota() async throws {
        let config = holdEverything + "\nmax_queued_per_owner = 3\n\n[daemon]\nsocket_mode = \"0666\"\n"
        try await withDaemon(config: config) { daemon, client in
            let socket = ["--socket", daemon.socketPath]
            var ids: [String] = []
            for n in 0..<3 {
                let submitted = try asNobody(
                    ["submit", "fetch", "http://127.0.0.1:9/q\(n)", "-o", "/tmp/lull-quota-\(n)", "--json"] + socket
                )
                #expect(submitted.status == 0, "\(submitted.stderr)")
                ids.append(String(try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id))
            }
            let refused = try asNobody(
                ["submit", "fetch", "http://127.0.0.1:9/q3", "-o", "/tmp/lull-quota-3"] + socket
            )
            #expect(refused.status == 7, "quota refusals have their own exit code")
            #expect(
                refused.stderr.contains("max_queued_per_owner") && refused.stderr.contains("quota is 3"),
                "\(refused.stderr)"
            )

            // Root is not limited; and a cancelled job frees its place.
            _ = try await client.submit(
                JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/root", destination: "/tmp/lull-quota-root")
            )
            #expect(try asNobody(["cancel", ids[0]] + socket).status == 0)
            let again = try asNobody(["submit", "fetch", "http://127.0.0.1:9/q4", "-o", "/tmp/lull-quota-4"] + socket)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(
                try asNobody(["submit", "fetch", "http://127.0.0.1:9/q5", "-o", "/tmp/lull-quota-5"] + socket).status
                    == 7
            )
        }
    }

    /// One uid may hold 64 event streams open; the 65th is refused with 429, naming the limit,
    /// and a closed stream gives its place back. (Unbounded, 1,100 streams from one uid took
    /// every descriptor the daemon had, and root could no longer ask for status.)
    @Test func anOwnersOpenEventStreamsAreCapped() async throws {
        let config = holdEverything + "\n[daemon]\nsocket_mode = \"0666\"\n"
        try await withDaemon(config: config) { daemon, client in
            let script = """
                import socket, sys
                def stream():
                    s = socket.socket(socket.AF_UNIX)
                    s.connect(sys.argv[1])
                    s.sendall(b"GET /v1/events?after=0 HTTP/1.1\\r\\nHost: l\\r\\nAccept: text/event-stream\\r\\n\\r\\n")
                    head = b""
                    while b"\\r\\n" not in head:
                        chunk = s.recv(4096)
                        if not chunk: break
                        head += chunk
                    return s, head.split(b" ")[1].decode(), head
                held = [stream() for _ in range(64)]
                extra, status, head = stream()
                print(",".join(sorted(set(h[1] for h in held))), status)
                print("")
                held[0][0].close()
                extra.close()
                import time
                for _ in range(100):
                    again, status, _ = stream()
                    if status == "200": break
                    again.close(); time.sleep(0.05)
                print(status)
                """
            let result = try CommandRunner.run(
                "/usr/bin/setpriv",
                [
                    "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--", "/usr/bin/env", "python3", "-c",
                    script, daemon.socketPath,
                ]
            )
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == "200 429", "64 streams open, the 65th refused: \(result.stdout)")
            #expect(lines.count > 2 && lines[2] == "200", "a closed stream gives its place back: \(result.stdout)")
            #expect(try await client.status().pid == daemon.pid, "root is served meanwhile")
        }
    }
}
