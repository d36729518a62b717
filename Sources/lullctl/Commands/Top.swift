import ArgumentParser
import Foundation
import LullClient

struct Top: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A full-screen view of the daemon and the machine: world, CPU and memory, running jobs, the queue, failures.",
        discussion: """
            Shows power, battery, network (metered, cellular) and pressure as the scheduler sees \
            them, CPU and memory sparklines from the daemon's sampler, running jobs with progress, \
            the queue by class with how many jobs are held and by which rule, and the latest \
            failures. q quits. Plain ANSI only, so it works over SSH and in tmux. When stdout is not \
            a terminal (or with --once) it prints one frame and exits.
            """)

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
        try await connection.withClient(style: .eventLoop) { client in
            var session = TopSession(client: client, interval: .milliseconds(Int(interval * 1000)))
            if once || !Terminal.standardOutputIsTerminal || isatty(STDIN_FILENO) != 1 {
                try await session.printOnce()
            } else {
                // Fail early and plainly (daemon not running, permission) before taking over the screen.
                _ = try await client.status()
                await session.run()
            }
        }
    }
}
