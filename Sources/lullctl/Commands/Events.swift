import ArgumentParser
import Foundation
import LullAPI
import LullClient

struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print job events after a cursor; --follow keeps printing new ones.",
        discussion: """
            With --follow, a daemon that restarts is followed from the last event printed; one \
            that stays away longer than --reconnect-for ends the command with exit 3. With \
            --json, each event is one JSON object on a line of its own (JSON Lines).
            """
    )

    @Option(name: .long, help: "Print events with a sequence number above this.")
    var after: Int64 = 0

    @Flag(name: [.short, .long], help: "Keep running and print new events as they happen.")
    var follow = false

    @OptionGroup var reconnect: ReconnectOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func run() async throws {
        try await connection.withClient(style: .eventLoop) { client in
            if follow {
                for try await event in client.followEvents(after: after, reconnectWithin: reconnect.window) {
                    try emit(event)
                }
            } else {
                var cursor = after
                while true {
                    let page = try await client.events(after: cursor)
                    for event in page.events { try emit(event) }
                    // A page may be empty but move the cursor past events this lulld left out.
                    if page.events.isEmpty, page.lastSeq == cursor { break }
                    cursor = page.lastSeq
                }
            }
        }
    }

    private func emit(_ event: EventView) throws {
        if format.json {
            let encoder = WireJSON.encoder(sortedKeys: true)
            print(String(decoding: try encoder.encode(event), as: UTF8.self))
        } else {
            var line = "\(event.seq)  \(Format.time(event.time))  job \(event.jobId)  \(event.type.rawValue)"
            if let progress = event.progress {
                line +=
                    "  \(Format.bytes(progress.bytesDone))"
                    + (progress.bytesTotal.map { " of \(Format.bytes($0))" } ?? "")
            }
            if let error = event.error { line += "  \(error.code): \(error.message)" }
            if let message = event.message { line += "  \(message)" }
            print(TextLayout.printable(line))
        }
        StandardOutput.flush()
    }
}
