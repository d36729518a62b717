import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

struct SubmitUpload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "upload", abstract: "Send a file.")

    @Argument(help: "The http:// or https:// URL to send to.")
    var url: String

    @Option(name: [.short, .long], help: ArgumentHelp("The file to send.", valueName: "path"))
    var file: String

    @Option(name: [.customShort("X"), .long], help: "PUT or POST (raw and multipart uploads).")
    var method: String?

    @Option(
        name: .customLong("protocol"),
        help: ArgumentHelp(
            "raw (the file is the request body, the default), multipart (one part of a form POST) or tus (resumable: an interrupted upload goes on where it stopped).",
            valueName: "protocol"
        ),
        completion: .list(ChoiceArgument.values(of: UploadProtocol.self)),
        transform: { try ChoiceArgument.parse($0, as: UploadProtocol.self) }
    )
    var uploadProtocol: UploadProtocol?

    @Option(
        name: .customLong("form-field"),
        help: ArgumentHelp("With --protocol multipart: the form field's name (default file).", valueName: "name")
    )
    var formField: String?

    @Option(
        name: .customLong("content-type"),
        help: "The file's content type (for multipart, application/octet-stream when left out)."
    )
    var contentType: String?

    @Option(
        name: .customLong("chunk-size"),
        help: ArgumentHelp(
            "With --protocol tus: the most one request sends, from 64K to 1T (default: the daemon's tus_chunk_bytes); a server that refuses a request as too large gets smaller ones anyway: \(ByteCountArgument.forms).",
            valueName: "size"
        ),
        transform: { try ByteCountArgument(parsing: $0) }
    )
    var chunkSize: ByteCountArgument?

    @OptionGroup var job: JobOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var format: OutputOptions

    func run() async throws {
        var submission = JobSubmission(
            kind: .upload,
            url: url,
            source: absolutePath(file),
            method: method,
            contentType: contentType,
            uploadProtocol: uploadProtocol,
            formField: formField,
            chunkBytes: chunkSize?.bytes
        )
        try job.apply(to: &submission)
        try await submitAndPrint(submission, connection: connection, output: format)
    }
}
