import ArgumentParser
import Foundation
import LullClient

struct Top: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract:
            "A full-screen view of the daemon and the machine: world, CPU and memory, running jobs, the queue, failures.",
        discussion: """
            Shows power, battery, network (metered, cellular) and pressure as the scheduler sees \
            them, CPU and memory sparklines from the daemon's sampler, running jobs with progress, \
            the queue by class with how many jobs are held and by which rule, and the latest \
            failures. q (or ctrl-c) quits with status 0; SIGTERM, a hang-up or SIGINT from outside \
            ends it by that signal once the screen is restored (a shell reports 143, 129, 130). Plain ANSI only, so \
            it works over SSH and in tmux. When stdout is not a terminal (or with --once) it prints \
            one frame and exits.
            """
    )

    @Option(name: .long, help: "Seconds between refreshes (0.2-60).")
    var interval: Double = 1

    @Flag(name: .long, help: "Print one frame as plain text and exit.")
    var once = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard (0.2...60).contains(interval) else {
            throw ValidationError("--interval must be from 0.2 to 60 seconds; \(interval) is out of range")
        }
    }

    func run() async throws {
        let stoppedBy = try await connection.withClient(style: .eventLoop) { client -> Int32? in
            var session = TopSession(client: client, interval: .milliseconds(Int(interval * 1000)))
            if once || !Terminal.standardOutputIsTerminal || isatty(STDIN_FILENO) != 1 {
                try await session.printOnce()
                return nil
            }
            // Fail early and plainly (daemon not running, permission) before taking over the screen.
            _ = try await client.status()
            return await session.run()
        }
        // q and ctrl-c typed into top quit it (0); SIGTERM or a hang-up from outside end it as
        // they would any other program, after the screen is restored.
        if let signal = stoppedBy {
            throw TerminalSignals.endProcess(by: signal)
        }
    }
}
