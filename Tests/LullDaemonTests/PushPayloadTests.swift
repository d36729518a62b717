import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// A push's payload from a file goes out with a content type, `-d @FILE` reads the file as curl
/// does, and `lullctl show` gives what the server answered.
@Suite(.timeLimit(.minutes(2)))
struct PushPayloadTests {
    static let lullctl = DaemonProcess.binary("lullctl")

    @Test func payloadFilesAreReadAndTyped() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/hook", .init())
        server.route("/broken", .init(faults: [.status(500)]))
        try await withDaemon(config: fastRetries) { daemon, client in
            let payload = daemon.directory.appendingPathComponent("payload.json").path
            try Data(#"{"event":"backup-done"}"#.utf8).write(to: URL(fileURLWithPath: payload))
            let socket = ["--socket", daemon.socketPath]
            var ids: [Int64] = []
            for (arguments, input) in [
                (["--data-file", payload], nil), (["-d", "@" + payload], nil),
                (["-d", "@-"], Data(#"{"event":"piped"}"#.utf8)),
                (["--data-file", payload, "--content-type", "text/plain"], nil),
            ] as [([String], Data?)] {
                let submitted = try CommandRunner.run(
                    Self.lullctl,
                    ["submit", "push", server.url("/hook"), "--json"] + arguments + socket,
                    input: input
                )
                #expect(submitted.status == 0, "\(arguments): \(submitted.stderr)")
                let job = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
                #expect(try await awaitJob(job.id, in: [.succeeded, .failed], client: client).state == .succeeded)
                ids.append(job.id)
            }
            let received = server.requests.filter { $0.uri == "/hook" }
            #expect(
                received.map { String(decoding: $0.body, as: UTF8.self) } == [
                    #"{"event":"backup-done"}"#, #"{"event":"backup-done"}"#, #"{"event":"piped"}"#,
                    #"{"event":"backup-done"}"#,
                ]
            )
            #expect(
                received.map { $0.header("content-type") } == [
                    "application/json", "application/json", nil, "text/plain",
                ]
            )

            // What the server answered is in show, not only in --json.
            let show = try CommandRunner.run(Self.lullctl, ["show", String(ids[0])] + socket)
            #expect(show.stdout.contains("response") && show.stdout.contains("stored 23 bytes"), "\(show.stdout)")
            let explain = try CommandRunner.run(Self.lullctl, ["explain", String(ids[0])] + socket)
            #expect(explain.stdout.contains("job \(ids[0]) succeeded"), "\(explain.stdout)")

            // A failure of a retryable kind that used up its attempts does not say it will retry.
            let broken = try await client.submit(
                JobSubmission(
                    kind: .push,
                    url: server.url("/broken"),
                    body: "{}",
                    retry: RetrySettings(maxAttempts: 1)
                )
            )
            #expect(try await awaitJob(broken.id, in: [.succeeded, .failed], client: client).state == .failed)
            let failed = try CommandRunner.run(Self.lullctl, ["show", String(broken.id)] + socket)
            #expect(failed.stdout.contains("(retryable, but no attempt was left)"), "\(failed.stdout)")
        }
    }
}

/// Wording a new user tripped on.
@Suite(.timeLimit(.minutes(1)))
struct WordingTests {
    @Test func pastTimesAndHugeIdsAreSaidPlainly() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            let lullctl = DaemonProcess.binary("lullctl")
            let past = try CommandRunner.run(
                lullctl,
                [
                    "submit", "fetch", "http://127.0.0.1:9/f", "-o", daemon.directory.path + "/f", "--not-before",
                    "-2h",
                    "--socket", daemon.socketPath,
                ]
            )
            #expect(past.status != 0 && past.stderr.contains("\"-2h\" is in the past"), "\(past.stderr)")
            let huge = try CommandRunner.run(
                "/usr/bin/curl",
                ["-s", "--unix-socket", daemon.socketPath, "http://lull/v1/jobs/99999999999999999999"]
            )
            #expect(
                huge.stdout.contains("\"not_found\"") && huge.stdout.contains("no job 99999999999999999999"),
                "\(huge.stdout)"
            )
            let word = try CommandRunner.run(
                "/usr/bin/curl",
                ["-s", "--unix-socket", daemon.socketPath, "http://lull/v1/jobs/abc"]
            )
            #expect(word.stdout.contains("is not a positive integer"), "\(word.stdout)")
            // A sign is no part of an id: "+1" named job 1 before.
            let signed = try CommandRunner.run(
                "/usr/bin/curl",
                ["-s", "--unix-socket", daemon.socketPath, "http://lull/v1/jobs/+1"]
            )
            #expect(signed.stdout.contains("is not a positive integer"), "\(signed.stdout)")
        }
    }
}
