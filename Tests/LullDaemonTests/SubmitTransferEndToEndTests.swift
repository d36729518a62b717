import Foundation
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Testing

/// `lullctl submit`'s transfer flags (checksum, sizes, upload protocol, idempotency key, retries,
/// timeouts), from the real binary to the real daemon and its store. The daemon holds every
/// job (`max_concurrent = 0`), so nothing runs.
@Suite struct SubmitTransferEndToEndTests {
    static let lullctl = DaemonProcess.binary("lullctl")

    func lullctl(_ arguments: [String], _ daemon: DaemonProcess) throws -> CommandResult {
        try CommandRunner.run(Self.lullctl, arguments + ["--socket", daemon.socketPath])
    }

    func submitted(_ result: CommandResult) throws -> JobView {
        #expect(result.status == 0, "\(result.stderr)")
        return try WireJSON.decoder().decode(JobView.self, from: Data(result.stdout.utf8))
    }

    @Test func everyKindsFlagsArriveAsGiven() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            let sha = String(repeating: "AB", count: 32)
            let fetch = try submitted(
                lullctl(
                    [
                        "submit", "fetch", "http://127.0.0.1:9/f", "-o",
                        daemon.directory.appendingPathComponent("f").path,
                        "--sha256", sha, "--expected-size", "10M", "--max-size", "1G",
                        "--max-attempts", "3", "--retry-delay", "10s", "--retry-max-delay", "1h", "--connect-timeout",
                        "5s",
                        "--idle-timeout", "30s", "--timeout", "2h", "--json",
                    ],
                    daemon
                )
            )
            #expect(fetch.sha256 == sha.lowercased())
            #expect(fetch.expectedBytes == 10 << 20 && fetch.maxBytes == 1 << 30)
            #expect(fetch.retry == RetrySettings(maxAttempts: 3, baseSeconds: 10, capSeconds: 3_600))
            #expect(fetch.timeouts == TimeoutSettings(connectSeconds: 5, idleSeconds: 30, totalSeconds: 7_200))

            let shown = try lullctl(["show", String(fetch.id)], daemon)
            let lines = shown.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
            for line in [
                "expected sha256 \(sha.lowercased())", "expected size 10.0 MiB (10485760)",
                "size limit 1.0 GiB (1073741824)",
                "retries at most 3 attempts, backoff 10 s doubling, waits at most 1 h",
                "timeouts idle 30 s, total 2 h, connect 5 s",
            ] {
                #expect(lines.contains(line), "show prints \(line): \(shown.stdout)")
            }

            let source = daemon.directory.appendingPathComponent("payload").path
            try Data("payload\n".utf8).write(to: URL(fileURLWithPath: source))
            let tus = try submitted(
                lullctl(
                    ["submit", "upload", "http://127.0.0.1:9/files/", "-f", source, "--protocol", "tus", "--json"],
                    daemon
                )
            )
            #expect(tus.uploadProtocol == .tus)
            let multipart = try submitted(
                lullctl(
                    [
                        "submit", "upload", "http://127.0.0.1:9/form", "-f", source, "--protocol", "multipart",
                        "--form-field", "attachment", "--content-type", "image/png", "--json",
                    ],
                    daemon
                )
            )
            let push = try submitted(
                lullctl(
                    [
                        "submit", "push", "http://127.0.0.1:9/p", "-d", "{}", "--idempotency-key", "order-42",
                        "--max-attempts", "1", "--json",
                    ],
                    daemon
                )
            )
            #expect(push.retry == RetrySettings(maxAttempts: 1))

            // The fields the job object does not show, in the store the daemon wrote.
            #expect(daemon.stop() == 0)
            let store = try SQLiteJobStore(path: daemon.stateDirectory + "/lull.sqlite")
            let storedMultipart = try #require(try await store.job(JobID(multipart.id))?.spec.payload.upload)
            #expect(storedMultipart.uploadProtocol == .multipart && storedMultipart.formField == "attachment")
            #expect(storedMultipart.contentType == "image/png")
            #expect(try #require(try await store.job(JobID(push.id))).spec.payload.push?.idempotencyKey == "order-42")
        }
    }

    @Test func badValuesAreRefusedNamingTheFlagOrTheField() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            let output = daemon.directory.appendingPathComponent("f").path
            // lullctl refuses what it can parse itself, before the daemon sees anything (usage: 64).
            let size = try lullctl(
                ["submit", "fetch", "http://127.0.0.1:9/f", "-o", output, "--expected-size", "10X"],
                daemon
            )
            #expect(
                size.status == 64 && size.stderr.contains("--expected-size") && size.stderr.contains("512K"),
                "\(size.stderr)"
            )
            let tus = try lullctl(
                ["submit", "upload", "http://127.0.0.1:9/u", "-f", output, "--protocol", "ftp"],
                daemon
            )
            #expect(tus.status == 64 && tus.stderr.contains("raw, multipart, tus"), "\(tus.stderr)")
            // The daemon checks ranges and names its field (bad request: 6).
            let attempts = try lullctl(
                ["submit", "fetch", "http://127.0.0.1:9/f", "-o", output, "--max-attempts", "0"],
                daemon
            )
            #expect(
                attempts.status == 6 && attempts.stderr.contains("retry.max_attempts must be from 1 to 100"),
                "\(attempts.stderr)"
            )
            let sha = try lullctl(["submit", "fetch", "http://127.0.0.1:9/f", "-o", output, "--sha256", "abc"], daemon)
            #expect(sha.status == 6 && sha.stderr.contains("sha256 must be 64 hexadecimal characters"), "\(sha.stderr)")
            // A body past max_request_bytes: the daemon answers 413 and closes before reading it
            // all, and lullctl still shows that answer, not "is lulld running?" (exit 3).
            let big = daemon.directory.appendingPathComponent("big").path
            try Data(repeating: 0x61, count: 900 << 10).write(to: URL(fileURLWithPath: big))
            let push = try lullctl(["submit", "push", "http://127.0.0.1:9/p", "--data-file", big], daemon)
            #expect(
                push.status == 6 && push.stderr.contains("the limit is 1048576 bytes"),
                "\(push.status): \(push.stderr)"
            )
            let list = try lullctl(["list", "--json"], daemon)
            #expect(
                try WireJSON.decoder().decode(JobListView.self, from: Data(list.stdout.utf8)).jobs.isEmpty,
                "nothing was queued"
            )
        }
    }
}
