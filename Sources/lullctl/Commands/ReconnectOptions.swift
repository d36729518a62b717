import ArgumentParser

/// How long a command that follows the event stream waits for a daemon that went away (a
/// restart, an upgrade) before it gives up with exit 3.
struct ReconnectOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds to wait for a daemon that stopped answering before giving up with exit 3 (1-3600).",
            valueName: "seconds"
        )
    )
    var reconnectFor: Double = 60

    func validate() throws {
        guard (1...3600).contains(reconnectFor) else {
            throw ValidationError("--reconnect-for must be from 1 to 3600 seconds; \(reconnectFor) is out of range")
        }
    }

    var window: Duration { .milliseconds(Int64(reconnectFor * 1000)) }
}
