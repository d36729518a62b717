import Foundation
import LullAPI
import LullTestSupport
import Testing

/// `lullctl list` from the real binary against a real daemon that holds its jobs
/// (`max_concurrent = 0`), so the listed states stay put.
@Suite struct ListCommandTests {
    /// The job ids of a `list` table, in order.
    static func ids(_ table: String) -> [Int64] {
        table.split(separator: "\n").compactMap { line in line.split(separator: " ").first.flatMap { Int64($0) } }
    }

    /// The command after `more: `, if the output offers another page.
    static func hint(_ output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("more: ") }.map { String($0.dropFirst("more: ".count)) }
    }

    /// Runs a hint through a real shell, as a user would paste it, with lullctl on PATH.
    static func run(hint command: String) throws -> CommandResult {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = DaemonProcess.productsDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return try CommandRunner.run("/bin/sh", ["-c", command], environment: environment)
    }

    @Test func thePagingHintKeepsTheFiltersAndRunsAsPrinted() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            func submit(_ n: Int, label: String?) async throws -> Int64 {
                try await client.submit(
                    JobSubmission(
                        kind: .fetch,
                        url: "http://127.0.0.1:9/\(n)",
                        destination: "/tmp/lull-list-\(n)",
                        label: label
                    )
                ).id
            }
            // Other labels in between: a hint that dropped --label would list them.
            let first = try await submit(1, label: "a b")
            _ = try await submit(2, label: nil)
            let second = try await submit(3, label: "a b")
            _ = try await submit(4, label: "it's")
            let third = try await submit(5, label: "a b")

            let lullctl = DaemonProcess.binary("lullctl")
            let page = try CommandRunner.run(
                lullctl,
                ["list", "--label", "a b", "--state", "queued", "--limit", "1", "--socket", daemon.socketPath]
            )
            #expect(page.status == 0, "\(page.stderr)")
            #expect(Self.ids(page.stdout) == [first], "\(page.stdout)")

            var listed = Self.ids(page.stdout)
            var next = Self.hint(page.stdout)
            #expect(
                next
                    == "lullctl list --state queued --label 'a b' --limit 1 --after \(first) --socket \(daemon.socketPath)"
            )
            var pages = 0
            while let command = next, pages < 5 {
                let result = try Self.run(hint: command)
                #expect(result.status == 0, "\(command): \(result.stderr)")
                listed += Self.ids(result.stdout)
                next = Self.hint(result.stdout)
                pages += 1
            }
            #expect(listed == [first, second, third])
        }
    }

    @Test func hintValuesTheShellOrTheParserWouldMisreadAreQuoted() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            for n in 0..<2 {
                _ = try await client.submit(
                    JobSubmission(
                        kind: .fetch,
                        url: "http://127.0.0.1:9/\(n)",
                        destination: "/tmp/lull-list-q\(n)",
                        label: "-it's $HOME"
                    )
                )
            }
            let page = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["list", "--label=-it's $HOME", "--limit", "1", "--socket", daemon.socketPath]
            )
            #expect(page.status == 0, "\(page.stderr)")
            let command = try #require(Self.hint(page.stdout), "\(page.stdout)")
            #expect(command.contains(#"--label='-it'\''s $HOME'"#), "\(command)")
            let next = try Self.run(hint: command)
            #expect(next.status == 0, "\(command): \(next.stderr)")
            #expect(Self.ids(next.stdout).count == 1, "\(next.stdout)")
        }
    }
}
