import ArgumentParser
import LullAPI
import LullClient

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's state and job counts."
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func run() async throws {
        let status = try await connection.withClient { try await $0.status() }
        if format.json {
            try printJSON(status)
            return
        }
        let counts = ["queued", "running", "paused", "succeeded", "failed", "cancelled", "expired"]
            .map { "\($0) \(status.jobs[$0] ?? 0)" }.joined(separator: ", ")
        print(
            """
            lulld \(status.version), pid \(status.pid), up \(Format.duration(status.uptimeSeconds)) (since \(Format.clock(status.startedAt)))
            answered    \(connection.target.description)
            socket      \(status.socket)
            state dir   \(status.stateDir)\(status.stateDirMode.map { " (mode \($0))" } ?? "")
            jobs        \(counts)
            limits      \(status.limits.maxConcurrent) concurrent, request body \(Format.bytes(Int64(status.limits.maxRequestBytes)))
            memory      \(Format.bytes(status.process.rssBytes)) resident, \(String(format: "%.2f", status.process.cpuSeconds)) s CPU
            """
        )
        if let world = status.world { print("world       \(describe(world))") }
        if let mode = status.stateDirMode, let bits = Int(mode, radix: 8), bits & 0o077 != 0 {
            print(
                "warning     the state directory is reachable by other users (mode \(mode)); run chmod 700 \(status.stateDir)"
            )
        }
    }
}
