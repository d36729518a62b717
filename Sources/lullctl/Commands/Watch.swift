import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow jobs live until they end: progress bars, rates, time left, states.",
        discussion: """
            Give job ids, or --label to watch every unfinished job with that label. On a terminal \
            the jobs are drawn as progress bars redrawn in place; into a pipe or a file each change \
            is one plain line (progress once per 10%). Driven by the daemon's event stream; a \
            restarted daemon is followed from where it left off; one that stays away longer than \
            --reconnect-for ends the watch with exit 3. ctrl-c stops watching, not the jobs.

            With --label, the jobs that have not ended are watched; when all of that label's \
            jobs have ended already, their outcomes decide the exit code.

            Exit codes: 0 every watched job succeeded (a fetch that was not modified counts); \
            8 at least one failed, was cancelled or expired; 3 the daemon is not reachable; \
            4 no such job, or no job with that label. Stopped with ctrl-c (SIGTERM, SIGHUP) before the jobs ended, watch \
            ends by that signal, which a shell reports as 130 (143, 129).
            """
    )

    /// Exit code when a watched job ended without succeeding.
    static let someJobDidNotSucceed: Int32 = 8

    @Argument(help: "The job ids to watch.")
    var ids: [Int64] = []

    @Option(name: .long, help: "Watch every unfinished job with this label.")
    var label: String?

    @Flag(name: .long, help: "Print plain lines even on a terminal.")
    var plain = false

    @OptionGroup var reconnect: ReconnectOptions

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print the watched jobs' events as JSON lines, with raw values.")
    var json = false

    func validate() throws {
        if ids.isEmpty == (label == nil) {
            throw ValidationError(
                "give job ids or --label, not both and not neither: lullctl watch 42 43, or lullctl watch --label nightly"
            )
        }
    }

    func run() async throws {
        let (ending, failed) = try await connection.withClient(style: .eventLoop) {
            client -> (WatchSession.Ending, Bool) in
            // The cursor is taken before the jobs are read, so nothing that happens in between is missed.
            let cursor = try await client.status().lastEventSeq ?? 0
            let jobs: [JobView]
            if let label {
                let labelled = try await client.allJobs(label: label)
                jobs = labelled.filter { !$0.state.isTerminal }
                if jobs.isEmpty { return (.jobsEnded, try Self.reportEnded(labelled, label: label, json: json)) }
            } else {
                jobs = try await read(ids, from: client)
            }
            let mode: WatchSession.Mode = json ? .json : (plain || !Terminal.standardOutputIsTerminal ? .plain : .live)
            var session = WatchSession(board: WatchBoard(jobs), mode: mode)
            let ending = try await session.run(client: client, after: cursor, reconnectWithin: reconnect.window)
            return (ending, !session.board.failures.isEmpty)
        }
        // Stopped early, the jobs' outcome is unknown: a script must not take it for success.
        if case .stopped(let signal) = ending {
            throw TerminalSignals.endProcess(by: signal)
        }
        if failed { throw ExitCode(Self.someJobDidNotSucceed) }
    }

    private func read(_ ids: [Int64], from client: LullClient) async throws -> [JobView] {
        var jobs: [JobView] = []
        for id in ids where !jobs.contains(where: { $0.id == id }) { jobs.append(try await client.job(id)) }
        return jobs
    }

    /// Nothing left to watch under the label: a label no job has is a mistake (exit 4), and
    /// jobs that all ended before the watch began still decide its outcome, so
    /// `watch --label L && next-step` does not go on after a failure it came too late to see.
    /// Answers whether one of them did not succeed. With `--json` the line goes to stderr:
    /// standard output holds events only.
    private static func reportEnded(_ labelled: [JobView], label: String, json: Bool) throws -> Bool {
        guard !labelled.isEmpty else {
            printError("no job has the label \"\(label)\"; lullctl list shows the jobs there are, with their labels")
            throw ExitCode(4)
        }
        let unsuccessful = labelled.filter { $0.state != .succeeded }
        var line = "no unfinished jobs with label \"\(label)\": \(labelled.count - unsuccessful.count) succeeded"
        if !unsuccessful.isEmpty {
            let ids =
                unsuccessful.prefix(5).map { String($0.id) }.joined(separator: ", ")
                + (unsuccessful.count > 5 ? ", …" : "")
            line += ", \(unsuccessful.count) did not (\(ids))"
        }
        line += "; lullctl list --label \(List.shellQuoted(label)) shows them"
        if json { printError(line) } else { print(line) }
        return !unsuccessful.isEmpty
    }
}
