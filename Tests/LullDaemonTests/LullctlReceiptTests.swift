import Foundation
import LullAPI
import LullCore
import LullTestSupport
import Testing

/// What a one-shot `lullctl` command takes from its environment and prints, through the real
/// binary: the one-line receipt of `submit` (decoded from the answer's id and state only), the
/// caller's umask, `LULL_SOCKET` and `LULL_CALL_TIMEOUT` (read without Foundation's process info).
@Suite struct LullctlReceiptTests {
    static let lullctl = DaemonProcess.binary("lullctl")

    @Test func theReceiptNamesTheStoredJobAndJSONCarriesTheWholeView() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("r").path
            let plain = try CommandRunner.run(
                "/bin/sh",
                [
                    "-c", "umask 027; exec \"$0\" \"$@\"", Self.lullctl, "submit", "fetch", "http://127.0.0.1:9/r",
                    "-o", destination,
                ],
                environment: ProcessInfo.processInfo.environment.merging(["LULL_SOCKET": daemon.socketPath]) { $1 }
            )
            #expect(plain.status == 0, "\(plain.stderr)")
            let stored = try #require(try await client.list().jobs.last)
            #expect(plain.stdout == "job \(stored.id) queued; follow it with lullctl watch \(stored.id)\n")
            #expect(stored.destination == destination && stored.state == .queued)
            #expect(stored.mode == "0640", "0666 less the caller's umask 027")

            let json = try CommandRunner.run(
                Self.lullctl,
                [
                    "submit", "fetch", "http://127.0.0.1:9/j", "-o", destination + "j", "--json", "--socket",
                    daemon.socketPath,
                ]
            )
            #expect(json.status == 0, "\(json.stderr)")
            let view = try WireJSON.decoder().decode(JobView.self, from: Data(json.stdout.utf8))
            #expect(view == (try await client.job(view.id)))
            #expect(view.id == stored.id + 1 && view.url == "http://127.0.0.1:9/j")
        }
    }

    @Test func theCallTimeoutComesFromTheEnvironmentAndABadOneIsNamed() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            var environment = ProcessInfo.processInfo.environment
            environment["LULL_SOCKET"] = daemon.socketPath
            environment["LULL_CALL_TIMEOUT"] = "soon"
            let bad = try CommandRunner.run(Self.lullctl, ["status"], environment: environment)
            #expect(bad.status == 64)
            #expect(
                bad.stderr.contains("LULL_CALL_TIMEOUT must be a number of seconds from 0.1 to 3600"),
                "\(bad.stderr)"
            )
            #expect(bad.stderr.contains("\"soon\""))

            environment["LULL_CALL_TIMEOUT"] = "2.5"
            let good = try CommandRunner.run(Self.lullctl, ["status"], environment: environment)
            #expect(good.status == 0, "\(good.stderr)")
        }
    }
}
