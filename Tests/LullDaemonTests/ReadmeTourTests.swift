import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

/// The README's five-minute tour and its curl tour, run as written: the two code blocks are
/// read from README.md and run by bash, a line at a time, against a real daemon. What cannot run
/// unattended is changed, and each change is listed here: the daemon is a `DaemonProcess`
/// instead of `make run` in another shell (so `LULL_SOCKET` points at it), `/tmp/` is a
/// directory of the test's own, port 8000 is a free one, `top` draws one frame (`--once`), the
/// endless event stream of curl is cut after two seconds, and the tour waits for its file server
/// to listen before the first submission.
@Suite(.timeLimit(.minutes(3)))
struct ReadmeTourTests {
    static var readme: String {
        get throws {
            let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            return try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        }
    }

    /// The first ```sh block after `marker`.
    static func block(after marker: String, in text: String) throws -> [String] {
        let start = try #require(text.range(of: marker)).upperBound
        let open = try #require(text.range(of: "```sh\n", range: start..<text.endIndex)).upperBound
        let close = try #require(text.range(of: "\n```", range: open..<text.endIndex)).lowerBound
        return text[open..<close].split(separator: "\n").map(String.init)
    }

    @Test func theTourRunsAsWritten() async throws {
        let readme = try Self.readme
        let tour =
            try Self.block(after: "In another:", in: readme)
            + Self.block(after: "The same with nothing but curl:", in: readme)
        #expect(tour.contains { $0.hasPrefix("lullctl pause") }, "the tour still pauses a job")
        try await withDaemon { daemon, client in
            let scratch = daemon.directory.appendingPathComponent("tmp").path + "/"
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            let port = String(try Socket.freeLoopbackPort())
            let binaries = DaemonProcess.productsDirectory.path
            var script = [
                "set -u",
                // The tour's binaries are the release build; the tests run the debug one beside it.
                "export PATH=\"\(binaries):$PATH\"",
                // SIGKILL: the test runner's threads block the other signals, and its children inherit that.
                #"trap 'echo "TOUR LINE FAILED ($?): $BASH_COMMAND" >&2; kill -9 0' ERR"#,
            ]
            for line in tour {
                var line = line.replacingOccurrences(of: "/tmp/", with: scratch).replacingOccurrences(
                    of: "8000",
                    with: port
                )
                if line.hasPrefix("export PATH=") { continue }
                if line.hasPrefix("lullctl top") {
                    line = line.replacingOccurrences(of: "lullctl top", with: "lullctl top --once")
                }
                if line.hasPrefix("curl -N") {
                    line =
                        line.replacing(/\s+#.*$/, with: "").replacingOccurrences(
                            of: "curl -N",
                            with: "curl -N --max-time 2"
                        )
                        + " || [ $? = 28 ]"
                }
                // The server needs a moment to listen; the first fetch would wait out a retry otherwise.
                if line.hasPrefix("lullctl status") {
                    script.append(
                        "for i in $(seq 100); do curl -sf -o /dev/null http://127.0.0.1:\(port)/big.bin && break; sleep 0.05; done"
                    )
                }
                script.append(line)
            }
            let run = try CommandRunner.run(
                "/usr/bin/setsid",
                ["--wait", "/bin/bash", "-c", script.joined(separator: "\n") + "\nkill -9 0"],
                environment: ProcessInfo.processInfo.environment.merging(["LULL_SOCKET": daemon.socketPath]) { $1 }
            )
            #expect(!run.stderr.contains("TOUR LINE FAILED"), "\(run.stderr)\n--- stdout:\n\(run.stdout.suffix(3000))")
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: scratch + "big.bin"))
                    == Data(contentsOf: URL(fileURLWithPath: scratch + "www/big.bin"))
            )
            #expect(try await client.job(1).state == .succeeded)
            #expect(try await client.job(3).state == .cancelled)
            #expect(run.stdout.contains(#""field":"url""#), "the last curl line shows an error naming its field")
            #expect(
                try await awaitJob(4, in: [.succeeded, .failed], client: client).state == .succeeded,
                "the curl submission"
            )
        }
    }
}
