import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

struct Logs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "Print a run job's output.",
        discussion: """
            The daemon keeps the newest [run] max_log_bytes of each attempt's output. With \
            --follow, lullctl prints output as it comes until the job ends; a new attempt starts \
            a new log, printed from its beginning.
            """
    )

    @Argument(help: "The job id.")
    var id: Int64

    @Flag(name: [.short, .long], help: "Keep printing new output until the job ends.")
    var follow = false

    @Option(
        name: .long,
        help: ArgumentHelp("How often --follow asks for more, in seconds (0.05 to 60).", valueName: "seconds")
    )
    var interval: Double = 0.5

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard (0.05...60).contains(interval) else {
            throw ValidationError("--interval must be from 0.05 to 60 seconds; \(interval) is out of range")
        }
    }

    func run() async throws {
        try await connection.withClient(about: id) { client in
            guard follow else {
                write(try await client.output(id))
                return
            }
            var (offset, attempts): (Int64, Int?) = (0, nil)
            while true {
                // The state first: output read after the job ended is all there will be.
                let job = try await client.job(id)
                if let attempts, job.attempts != attempts { offset = 0 }
                attempts = job.attempts
                let page = try await client.outputPage(id, offset: offset)
                if let size = page.logSize, size < offset {
                    // Cut to its newest bytes (or begun again): what lay between is gone.
                    printError(
                        "job \(id)'s log was cut to its newest bytes ([run] max_log_bytes); output was lost here"
                    )
                    offset = 0
                    continue
                }
                write(page.bytes)
                offset += Int64(page.bytes.count)
                if [.succeeded, .failed, .cancelled, .expired].contains(job.state) { return }
                try await Task.sleep(for: .seconds(interval))
            }
        }
    }

    private func write(_ bytes: [UInt8]) {
        StandardOutput.write(bytes)
    }
}
