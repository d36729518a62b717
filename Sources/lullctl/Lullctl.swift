import ArgumentParser
import LullCore

#if canImport(Glibc)
import Glibc
#endif

@main
struct Lullctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lullctl",
        abstract: "Submit, inspect and control background transfers run by lulld.",
        discussion: """
            The daemon's socket is --socket, else $LULL_SOCKET, else the user instance's \
            ($XDG_RUNTIME_DIR/lull/lull.sock) if it exists, else the system instance's \
            (/run/lull/lull.sock); --system or --user-instance choose one. Every read command takes --json (events and \
            watch print one JSON object per line; top, a live screen, has none: status --json and \
            list --json give what it shows). A call waits \
            --call-timeout seconds (else $LULL_CALL_TIMEOUT, else 30) for the daemon to answer.

            Exit codes: 0 success; 1 the daemon refused or failed the request; 64 bad usage (a flag or value the command does not take); \
            3 the daemon is not reachable or did not answer in time; 4 no such job; 5 the job is not in a state that \
            allows the command; 6 the daemon rejected the request as invalid; 7 a quota or limit \
            (limits.max_queued_per_owner, limits.max_connections_per_uid) is full; 8 (watch) a watched job failed, was cancelled or \
            expired.
            """,
        version: LullVersion.current,
        subcommands: [
            Submit.self, List.self, Show.self, Explain.self, Simulate.self, Cancel.self, Pause.self, Resume.self,
            Status.self,
            Events.self, Watch.self, Top.self, Reload.self, Logs.self,
        ]
    )

    static func main() async {
        // lullctl writes UTF-8 whatever the locale; the C library's character type must be UTF-8
        // too for `wcwidth` to know how many columns a character takes (TextLayout). Only the
        // character type: numbers, dates and messages stay as they are.
        if setlocale(LC_CTYPE, "C.UTF-8") == nil { setlocale(LC_CTYPE, "") }
        await main(connectionOptionsMovedAfterSubcommand(Array(CommandLine.arguments.dropFirst())))
        // What a command printed last is still buffered: its write may fail yet.
        StandardOutput.flush()
    }

    /// `--socket`, `--call-timeout`, `--system` and `--user-instance` belong to every subcommand, but people put them first
    /// (`lullctl --socket /run/lull/lull.sock status`), as with other tools' global flags: they
    /// are moved after the subcommand's own arguments (before a `--`, which ends the options).
    static func connectionOptionsMovedAfterSubcommand(_ arguments: [String]) -> [String] {
        var rest = arguments
        var moved: [String] = []
        let names = ["--socket", "--call-timeout"]
        let flags = ["--system", "--user-instance"]
        while let first = rest.first,
            flags.contains(first) || names.contains(where: { first == $0 || first.hasPrefix($0 + "=") })
        {
            let take = names.contains(first) ? min(2, rest.count) : 1
            moved += rest.prefix(take)
            rest.removeFirst(take)
        }
        guard !moved.isEmpty, !rest.isEmpty else { return arguments }
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: moved, at: end)
        return rest
    }
}
