import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// lullctl where its output goes wrong: a reader that leaves, a full disk, a log cut under a
/// follower, prose where a script reads JSON, and flags that contradict each other.
@Suite struct LullctlBrokenOutputTests {
    static let lullctl = DaemonProcess.binary("lullctl")

    func bash(_ script: String) throws -> CommandResult {
        try CommandRunner.run("/bin/bash", ["-c", script])
    }

    func submitHeld(
        _ client: LullClient,
        _ daemon: DaemonProcess,
        count: Int,
        label: String? = nil
    ) async throws
        -> [Int64]
    {
        var ids: [Int64] = []
        for n in 0..<count {
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/\(n)",
                    destination: daemon.directory.appendingPathComponent("f\(n)").path,
                    label: label
                )
            )
            ids.append(job.id)
        }
        return ids
    }

    /// SwiftNIO ignores SIGPIPE, so a follower piped into `head` wrote into nothing for ever.
    @Test func aFollowerWhoseReaderLeftEndsAsSIGPIPEWouldEndIt() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let script =
                "timeout 20 '\(Self.lullctl)' events --follow --socket '\(daemon.socketPath)' | head -n 1 > /dev/null; "
                + "echo ${PIPESTATUS[0]}"
            let ended = Mutex(false)
            let piped = Task {
                defer { ended.withLock { $0 = true } }
                return try bash(script)
            }
            // Events keep coming after `head` has its line and leaves, as a busy daemon's do.
            for _ in 0..<100 where !ended.withLock({ $0 }) {
                _ = try await submitHeld(client, daemon, count: 1)
                try await Task.sleep(for: .milliseconds(100))
            }
            let result = try await piped.value
            #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "141", "\(result)")
        }
    }

    @Test func aFullDiskIsAFailureNotSilence() async throws {
        try await withDaemon { daemon, client in
            let run = try await client.submit(JobSubmission(kind: .run, url: "", argv: ["echo", "out"]))
            _ = try await awaitJob(run.id, in: [.succeeded, .failed], client: client)
            for command in ["list --json", "show \(run.id) --json", "logs \(run.id)"] {
                let full = try bash("'\(Self.lullctl)' \(command) --socket '\(daemon.socketPath)' > /dev/full")
                #expect(full.status == 1, "\(command): \(full)")
                #expect(full.stderr.contains("cannot write the output: No space left on device"), "\(command): \(full)")
            }
        }
    }

    @Test func watchWithJSONKeepsItsLineOffStandardOutput() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let ids = try await submitHeld(client, daemon, count: 1, label: "gone")
            _ = try await client.cancel(ids[0])
            let watched = try CommandRunner.run(
                Self.lullctl,
                ["watch", "--label", "gone", "--json", "--socket", daemon.socketPath]
            )
            #expect(watched.status == 8, "\(watched)")
            #expect(watched.stdout.isEmpty, "\(watched)")
            #expect(watched.stderr.contains("no unfinished jobs with label \"gone\""), "\(watched)")
        }
    }

    @Test func simulateRefusesFlagsThatContradictEachOther() throws {
        for flags in [["--on-battery", "--on-ac"], ["--idle", "--user-active"]] {
            let refused = try CommandRunner.run(Self.lullctl, ["simulate"] + flags + ["--socket", "/nonexistent"])
            #expect(refused.status == 64, "\(flags): \(refused)")
            #expect(refused.stderr.contains("not both"), "\(flags): \(refused)")
        }
    }

    /// The daemon keeps a log's newest half once it reaches `[run] max_log_bytes`; a follower
    /// whose place lay past the new end printed nothing more.
    @Test func aFollowerOfALogThatIsCutSaysSoAndPrintsToTheEnd() async throws {
        try await withDaemon(config: "[run]\nmax_log_bytes = 4096\n") { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .run,
                    url: "",
                    argv: [
                        "sh", "-c",
                        "i=0; while [ $i -lt 400 ]; do printf 'line %05d\\n' $i; i=$((i+1)); sleep 0.01; done",
                    ],
                    workingDirectory: "/tmp"
                )
            )
            let followed = try CommandRunner.run(
                Self.lullctl,
                ["logs", String(job.id), "--follow", "--interval", "0.1", "--socket", daemon.socketPath]
            )
            #expect(followed.status == 0, "\(followed.stderr)")
            let lines = followed.stdout.split(separator: "\n")
            #expect(lines.last == "line 00399", "\(lines.suffix(3))")
            #expect(lines.first == "line 00000")
            #expect(followed.stderr.contains("log was cut to its newest bytes"), "\(followed.stderr)")
        }
    }

    /// A peer that sends a negative or absurd `Content-Length` gets a framing error, not a trap.
    @Test func aContentLengthThatIsNoLengthIsRefused() {
        for field in ["-5", "+5", "5 5", "99999999999999999999", "1099511627777"] {
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: \(field)\r\n\r\n".utf8)
            #expect(throws: HTTPFramingError.badContentLength(field)) { try HTTPFraming.response(in: answer) }
        }
        let good = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nLull-Log-Size: 7\r\n\r\nok".utf8)
        let response = try? HTTPFraming.response(in: good)
        #expect(response?.headers["lull-log-size"] == "7")
        #expect(response.map { Array(good[$0.body]) } == Array("ok".utf8))
    }

    /// A daemon that takes the event stream and drops it at once, every time: the follower gives
    /// up after `--reconnect-for` instead of reconnecting for ever.
    @Test func aStreamDroppedAtOnceEveryTimeEndsTheFollowerInTime() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-drop-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("s").path
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [
            "-c",
            """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(16); s.settimeout(30)
            for _ in range(500):
                c, _ = s.accept(); c.recv(65536)
                c.sendall(b"HTTP/1.1 200 OK\\r\\ncontent-type: text/event-stream\\r\\ntransfer-encoding: chunked\\r\\n\\r\\n3\\r\\n:\\n\\n\\r\\n")
                c.close()
            """,
            socket,
        ]
        try server.run()
        // SIGKILL: the test process's blocked signals are the child's too, SIGTERM among them.
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
        let started = ContinuousClock.now
        let followed = try bash("timeout 30 '\(Self.lullctl)' events --follow --reconnect-for 2 --socket '\(socket)'")
        let took = ContinuousClock.now - started
        #expect(followed.status == 3, "\(followed)")
        #expect(took < .seconds(15), "\(took)")
    }
}
