import Foundation
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What `lullctl` prints for people. Labels and paths belong to whoever submitted the job, and
/// root's `list` shows everyone's: they must not be able to forge rows or drive the terminal.
/// Submissions refuse control characters now; a job stored before that rule still has them.
@Suite struct LullctlOutputTests {
    static let lullctl = DaemonProcess.binary("lullctl")

    @Test func otherUsersTextCannotForgeRowsOrEscapeToTheTerminal() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let hostile = "a\n99  running fetch /etc/shadow\u{1B}[31m"
            #expect(daemon.stop() == 0)
            let stored = try await SQLiteJobStore(path: daemon.stateDirectory + "/lull.sqlite").insert([
                NewJob(
                    owner: OwnerID(getuid()),
                    spec: JobSpec(
                        .fetch(
                            FetchJob(
                                url: "http://127.0.0.1:9/f",
                                destination: daemon.directory.appendingPathComponent("x\u{1B}]0;t\u{07}").path
                            )
                        ),
                        label: hostile
                    ),
                    createdAt: Date()
                )
            ])
            try daemon.start()
            let job = try await client.job(stored[0].id.rawValue)
            _ = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/g",
                    destination: daemon.directory.appendingPathComponent("g").path,
                    label: "🎉🎉🎉"
                )
            )
            // Drawn two columns wide though their scalars are narrow: a flag (two regional
            // indicators) and a heart in emoji style (U+2764 U+FE0F).
            _ = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/h",
                    destination: daemon.directory.appendingPathComponent("h").path,
                    label: "🇯🇵❤️"
                )
            )

            let list = try CommandRunner.run(Self.lullctl, ["list", "--socket", daemon.socketPath])
            #expect(list.status == 0, "\(list.stderr)")
            let rows = list.stdout.split(separator: "\n", omittingEmptySubsequences: true)
            #expect(rows.count == 4, "a header and one row per job:\n\(list.stdout)")
            #expect(!list.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
            #expect(list.stdout.contains(#"a\n99  running fetch /etc/shadow\u{1B}[31m"#))
            #expect(list.stdout.contains("🎉🎉🎉"), "an emoji label is not cut in half:\n\(list.stdout)")
            // The columns after the labels start at the same place on a terminal in every row: each
            // 🎉 (U+1F389, East Asian Width "wide"), 🇯🇵 and ❤️ takes two columns.
            let directory = daemon.directory.path
            let wide: Set<Character> = ["🎉", "🇯🇵", "❤️"]
            let targets = rows.dropFirst().map { row in
                row[..<(row.range(of: directory)?.lowerBound ?? row.endIndex)].reduce(0) {
                    $0 + (wide.contains($1) ? 2 : 1)
                }
            }
            #expect(Set(targets).count == 1, "\(list.stdout)")

            let show = try CommandRunner.run(Self.lullctl, ["show", String(job.id), "--socket", daemon.socketPath])
            #expect(show.status == 0, "\(show.stderr)")
            #expect(!show.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
            #expect(show.stdout.contains(#"x\u{1B}]0;t\u{7}"#), "\(show.stdout)")
            #expect(!show.stdout.contains("\n99  running"))
        }
    }
}
