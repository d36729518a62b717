import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

struct SubmitPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "push", abstract: "Send a small payload.")

    @Argument(help: "The http:// or https:// URL to send to.")
    var url: String

    @Option(
        name: [.short, .long],
        help: "The payload, as text; @FILE reads it from a file and @- from standard input, as curl -d does."
    )
    var data: String?

    @Option(
        name: .customLong("data-file"),
        help: ArgumentHelp(
            "Read the payload from this file; its content type follows from the extension (.json, .txt, .xml, .csv, .html, …) unless --content-type says it.",
            valueName: "path"
        )
    )
    var dataFile: String?

    @Option(name: [.customShort("X"), .long], help: "POST, PUT or PATCH.")
    var method: String?

    @Option(name: .customLong("content-type"), help: "The payload's content type.")
    var contentType: String?

    @Option(
        name: .customLong("idempotency-key"),
        help: ArgumentHelp(
            "Sent as Idempotency-Key with every attempt, so the server can tell a retry from a new request (the daemon makes one up when you give none).",
            valueName: "key"
        )
    )
    var idempotencyKey: String?

    @OptionGroup var job: JobOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func run() async throws {
        var text = data
        var file = dataFile
        if let data, data.hasPrefix("@") {
            guard dataFile == nil else { throw ValidationError("give the payload once: -d @FILE or --data-file FILE") }
            file = String(data.dropFirst())
            text = nil
        }
        var bodyBase64: String?
        var contentType = self.contentType
        if let file {
            bodyBase64 = try PayloadFile.read(file).base64EncodedString()
            contentType = contentType ?? PayloadFile.contentType(of: file)
        }
        var submission = JobSubmission(
            kind: .push,
            url: url,
            method: method,
            contentType: contentType,
            body: text,
            bodyBase64: bodyBase64,
            idempotencyKey: idempotencyKey
        )
        try job.apply(to: &submission)
        try await submitAndPrint(submission, connection: connection, output: format)
    }
}
