import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

struct SubmitFetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fetch", abstract: "Download a URL into a file.")

    @Argument(help: "The http:// or https:// URL to download.")
    var url: String

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Where the file goes.", valueName: "path"))
    var output: String

    @Option(
        help: ArgumentHelp(
            "The file's SHA-256 (64 hexadecimal characters): a download that does not match fails and is not kept.",
            valueName: "hex"
        )
    )
    var sha256: String?

    @Option(
        name: .customLong("expected-size"),
        help: ArgumentHelp(
            "The size you expect, for scheduling on metered links and for progress: \(ByteCountArgument.forms).",
            valueName: "size"
        ),
        transform: { try ByteCountArgument(parsing: $0) }
    )
    var expectedSize: ByteCountArgument?

    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp(
            "Fail the download if the file grows larger than this: \(ByteCountArgument.forms).",
            valueName: "size"
        ),
        transform: { try ByteCountArgument(parsing: $0) }
    )
    var maxSize: ByteCountArgument?

    @Option(
        help: ArgumentHelp(
            "The file's permission bits in octal, such as 0640 (default: 0666 less your umask, as curl -o would give).",
            valueName: "octal"
        )
    )
    var mode: String?

    @OptionGroup var job: JobOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func run() async throws {
        // The daemon runs with its own umask (0077 under its unit); without a mode the file
        // would get the daemon's idea of privacy rather than the caller's. The default (0644,
        // umask 022) is left out, so the usual submission also reaches a daemon older than `mode`.
        let mode =
            self.mode
            ?? CallerUmask.current.map { FileMode(creatingUnder: $0) }.flatMap {
                $0 == .fetchDefault ? nil : $0.octal
            }
        var submission = JobSubmission(
            kind: .fetch,
            url: url,
            destination: absolutePath(output),
            sha256: sha256,
            expectedBytes: expectedSize?.bytes,
            maxBytes: maxSize?.bytes,
            mode: mode
        )
        try job.apply(to: &submission)
        try await submitAndPrint(submission, connection: connection, output: format)
    }
}
