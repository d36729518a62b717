import ArgumentParser
import LullClient

/// `lullctl reload`: what the units' `ExecReload=` runs, so that `systemctl reload lulld` fails
/// when the daemon refuses the new config, and `systemctl status` shows why.
struct Reload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make the daemon read its config file again; fails, naming file:line, when it refuses it.",
        discussion: """
            Root, or the daemon's own user, only. A refused config leaves the old policy in force and \
            exits 1. Signalling the daemon with SIGHUP reloads too, without an answer.
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func run() async throws {
        let outcome = try await connection.withClient { try await $0.reload() }
        if format.json {
            try printJSON(outcome)
        } else {
            print(TextLayout.printable(outcome.message))
        }
    }
}
