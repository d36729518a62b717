import ArgumentParser
import LullAPI
import LullClient

/// cancel, pause and resume share their shape: an id in, the job's new state out.
protocol JobCommandRunner: AsyncParsableCommand {
    var id: Int64 { get }
    var connection: ConnectionOptions { get }
    var format: OutputOptions { get }
    static func perform(_ client: LullClient, _ id: Int64) async throws -> JobView
}

extension JobCommandRunner {
    func run() async throws {
        let job = try await connection.withClient(about: id) { try await Self.perform($0, id) }
        if format.json {
            try printJSON(job)
        } else {
            print("job \(job.id) \(job.state.rawValue)")
        }
    }
}

struct Cancel: JobCommandRunner {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a queued, running or paused job."
    )
    @Argument(help: "The job id.") var id: Int64
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions
    static func perform(_ client: LullClient, _ id: Int64) async throws -> JobView { try await client.cancel(id) }
}

struct Pause: JobCommandRunner {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Hold a job until it is resumed.")
    @Argument(help: "The job id.") var id: Int64
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions
    static func perform(_ client: LullClient, _ id: Int64) async throws -> JobView { try await client.pause(id) }
}

struct Resume: JobCommandRunner {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Put a paused job back in the queue."
    )
    @Argument(help: "The job id.") var id: Int64
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions
    static func perform(_ client: LullClient, _ id: Int64) async throws -> JobView { try await client.resume(id) }
}
