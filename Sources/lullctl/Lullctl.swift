import ArgumentParser
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
            ($XDG_RUNTIME_DIR/lull/lull.sock). Every read command takes --json.

            Exit codes: 0 success; 1 the daemon refused or failed the request; 64 bad usage (a flag or value the command does not take); \
            3 the daemon is not reachable; 4 no such job; 5 the job is not in a state that \
            allows the command; 6 the daemon rejected the request as invalid; 7 a quota \
            (limits.max_queued_per_owner) is full; 8 (watch) a watched job failed, was cancelled or \
            expired.
            """,
        version: "0.1.0",
        subcommands: [
            Submit.self, List.self, Show.self, Explain.self, Simulate.self, Cancel.self, Pause.self, Resume.self, Status.self,
            Events.self, Watch.self, Top.self,
        ])

    static func main() async {
        // lullctl writes UTF-8 whatever the locale; the C library's character type must be UTF-8
        // too for `wcwidth` to know how many columns a character takes (TextLayout). Only the
        // character type: numbers, dates and messages stay as they are.
        if setlocale(LC_CTYPE, "C.UTF-8") == nil { setlocale(LC_CTYPE, "") }
        await main(socketMovedAfterSubcommand(Array(CommandLine.arguments.dropFirst())))
    }

    /// `--socket` belongs to every subcommand, but people put it first (`lullctl --socket
    /// /run/lull/lull.sock status`), as with other tools' global flags: it is moved after the
    /// subcommand's own arguments (before a `--`, which ends the options).
    static func socketMovedAfterSubcommand(_ arguments: [String]) -> [String] {
        var rest = arguments
        var moved: [String] = []
        while let first = rest.first, first == "--socket" || first.hasPrefix("--socket=") {
            let take = first == "--socket" ? min(2, rest.count) : 1
            moved += rest.prefix(take)
            rest.removeFirst(take)
        }
        guard !moved.isEmpty, !rest.isEmpty else { return arguments }
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: moved, at: end)
        return rest
    }
}
