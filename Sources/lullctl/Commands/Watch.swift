import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow jobs live until they end: progress bars, rates, time left, states.",
        discussion: """
            Give job ids, or --label to watch every unfinished job with that label. On a terminal \
            the jobs are drawn as progress bars redrawn in place; into a pipe or a file each change \
            is one plain line (progress once per 10%). Driven by the daemon's event stream; a \
            restarted daemon is followed from where it left off. ctrl-c stops watching, not the jobs.

            Exit codes: 0 every watched job succeeded (a fetch that was not modified counts); \
            8 at least one failed, was cancelled or expired; 3 the daemon is not reachable; \
            4 no such job. Stopped with ctrl-c (SIGTERM, SIGHUP) before the jobs ended, watch \
            ends by that signal, which a shell reports as 130 (143, 129).
            """)

    /// Exit code when a watched job ended without succeeding.
    static let someJobDidNotSucceed: Int32 = 8

    @Argument(help: "The job ids to watch.")
    var ids: [Int64] = []

    @Option(name: .long, help: "Watch every unfinished job with this label.")
    var label: String?

    @Flag(name: .long, help: "Print plain lines even on a terminal.")
    var plain = false

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print the watched jobs' events as JSON lines, with raw values.")
    var json = false

    func validate() throws {
        if ids.isEmpty == (label == nil) {
            throw ValidationError("give job ids or --label, not both and not neither: lullctl watch 42 43, or lullctl watch --label nightly")
        }
    }

    func run() async throws {
        let (ending, failed) = try await connection.withClient(style: .eventLoop) { client -> (WatchSession.Ending, Bool) in
            // The cursor is taken before the jobs are read, so nothing that happens in between is missed.
            let cursor = try await client.status().lastEventSeq ?? 0
            let jobs = try await resolve(client)
            guard !jobs.isEmpty else {
                print("no unfinished jobs with label \"\(label ?? "")\"; lullctl list --label \(label ?? "") shows the finished ones")
                return (.jobsEnded, false)
            }
            let mode: WatchSession.Mode = json ? .json : (plain || !Terminal.standardOutputIsTerminal ? .plain : .live)
            var session = WatchSession(board: WatchBoard(jobs), mode: mode)
            let ending = try await session.run(client: client, after: cursor)
            return (ending, !session.board.failures.isEmpty)
        }
        // Stopped early, the jobs' outcome is unknown: a script must not take it for success.
        if case .stopped(let signal) = ending {
            TerminalSignals.endProcess(by: signal)
            throw ExitCode(128 + signal)
        }
        if failed { throw ExitCode(Self.someJobDidNotSucceed) }
    }

    private func resolve(_ client: LullClient) async throws -> [JobView] {
        if let label {
            return try await client.allJobs(label: label).filter { !$0.state.isTerminal }
        }
        var jobs: [JobView] = []
        for id in ids where !jobs.contains(where: { $0.id == id }) { jobs.append(try await client.job(id)) }
        return jobs
    }
}
