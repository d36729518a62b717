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

    /// Text that reaches the daemon's messages (a command's name, quoted in its
    /// `command_not_found`) may hold a newline; `watch` and `explain` printed it raw, so another
    /// user's job forged a line on root's terminal. A right-to-left override in a label turned
    /// the rest of its row around.
    @Test func watchAndExplainEscapeWhatAJobsMessagesQuote() async throws {
        try await withDaemon { daemon, client in
            let forged = "nosuch\n12:00:00  job 99  succeeded  all good"
            let job = try await client.submit(JobSubmission(kind: .run, url: "", argv: [forged]))
            let done = try await awaitJob(job.id, in: [.failed], client: client)
            #expect(done.error?.code == "command_not_found")
            for command in [["watch", String(job.id)], ["explain", String(job.id)]] {
                let run = try CommandRunner.run(Self.lullctl, command + ["--socket", daemon.socketPath])
                #expect(!run.stdout.contains("\n12:00:00  job 99"), "\(command[0]):\n\(run.stdout)")
                #expect(run.stdout.contains(#"nosuch\n12:00:00"#), "\(command[0]):\n\(run.stdout)")
            }
            _ = try await client.submit(
                JobSubmission(
                    kind: .run,
                    url: "",
                    label: "left\u{202E}thgir",
                    notBefore: Date().addingTimeInterval(3_600),
                    argv: ["true"]
                )
            )
            let list = try CommandRunner.run(Self.lullctl, ["list", "--socket", daemon.socketPath])
            #expect(!list.stdout.unicodeScalars.contains { $0.value == 0x202E }, "\(list.stdout)")
            #expect(list.stdout.contains(#"left\u{202E}thgir"#), "\(list.stdout)")
        }
    }

    /// Refused before anything is sent, each with what to do: a negative niceness typed as
    /// `--nice -5` is a value, not an unknown option; an interval Swift cannot sleep for does not
    /// crash lullctl; a header given twice would lose one value; a directory is no payload.
    @Test func lullctlSaysWhatIsWrongWithItsArguments() throws {
        let socket = "/nonexistent/lull.sock"
        let nice = try CommandRunner.run(
            Self.lullctl,
            ["submit", "run", "--socket", socket, "--nice", "-5", "--", "true"]
        )
        #expect(!nice.stderr.contains("Missing value"), "\(nice.stderr)")
        #expect(nice.status == 3, "parsed, then the daemon was not there: \(nice.stderr)")
        let interval = try CommandRunner.run(
            Self.lullctl,
            ["logs", "1", "--follow", "--interval", "inf", "--socket", socket]
        )
        #expect(interval.status == 64, "\(interval.stderr)")
        #expect(interval.stderr.contains("--interval must be from 0.05 to 60 seconds"), "\(interval.stderr)")
        let twice = try CommandRunner.run(
            Self.lullctl,
            [
                "submit", "fetch", "http://127.0.0.1:9/f", "-o", "/tmp/f", "-H", "X-A: 1", "-H", "x-a: 2", "--socket",
                socket,
            ]
        )
        #expect(twice.status == 64, "\(twice.stderr)")
        #expect(twice.stderr.contains("is given twice"), "\(twice.stderr)")
        let directory = try CommandRunner.run(
            Self.lullctl,
            ["submit", "push", "http://127.0.0.1:9/p", "-d", "@/", "--socket", socket]
        )
        #expect(directory.stderr.contains("Is a directory"), "\(directory.stderr)")
    }
}
