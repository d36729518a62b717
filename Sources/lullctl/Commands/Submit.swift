import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

struct Submit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hand a transfer to the daemon and return at once.",
        subcommands: [SubmitFetch.self, SubmitPush.self, SubmitUpload.self]
    )
}

/// Options every kind of submission takes.
struct JobOptions: ParsableArguments {
    @Option(name: .long, help: "A label to find the job by later.")
    var label: String?

    @Option(
        name: .customLong("class"),
        help: "The priority class (interactive, default, utility, background, maintenance)."
    )
    var jobClass: String?

    @Option(
        name: [.customShort("H"), .long],
        help: ArgumentHelp("An extra request header, 'Name: value'.", valueName: "header")
    )
    var header: [String] = []

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "Credentials for the server, sent as HTTP Basic authentication, as curl -u does (a URL may not carry them: it is shown in every view and log line). With a name alone the password comes from LULL_PASSWORD or is asked for; name:password works too, but other local users can read it in the process list while lullctl runs.",
            valueName: "name[:password]"
        )
    )
    var user: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "A PEM file of certificate authorities to trust for this job besides the system's (a server with a private or self-signed certificate); read with your rights.",
            valueName: "path"
        )
    )
    var caFile: String?

    @OptionGroup(title: "Scheduling") var scheduling: SchedulingOptions
    @OptionGroup(title: "Retries and timeouts") var transfer: TransferOptions

    /// Sets what these options say on `submission`.
    func apply(to submission: inout JobSubmission) throws {
        submission.headers = try headers()
        submission.label = label
        submission.jobClass = jobClass
        submission.caFile = caFile.map(absolutePath)
        try scheduling.apply(to: &submission)
        transfer.apply(to: &submission)
    }

    func headers() throws -> [String: String]? {
        guard !header.isEmpty || user != nil else { return nil }
        var result: [String: String] = [:]
        for line in header {
            guard let colon = line.firstIndex(of: ":") else {
                throw ValidationError("header \"\(line)\" must look like 'Name: value'")
            }
            result[String(line[..<colon]).trimmingCharacters(in: .whitespaces)] =
                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        if let user {
            guard !result.keys.contains(where: { $0.lowercased() == "authorization" }) else {
                throw ValidationError("give either --user or an Authorization header, not both")
            }
            let credentials = user.contains(":") ? user : user + ":" + (try ServerPassword.read(for: user))
            result["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
        }
        return result
    }
}

/// Absolute form of a path given on the command line, relative to the current directory.
/// A trailing slash is kept: `-o sub/` names a directory, which the daemon refuses, rather than
/// a file called `sub`.
func absolutePath(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    let resolved = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        .standardized.path
    return path.hasSuffix("/") && !resolved.hasSuffix("/") ? resolved + "/" : resolved
}

func submitAndPrint(_ submission: JobSubmission, connection: ConnectionOptions, output: OutputOptions) async throws {
    let job = try await connection.withClient { try await $0.submit(submission) }
    if output.json {
        try printJSON(job)
    } else {
        print("job \(job.id) \(job.state.rawValue); follow it with lullctl watch \(job.id)")
    }
}

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
