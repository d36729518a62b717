import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

struct Submit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Hand a job to the daemon and return at once.",
        subcommands: [SubmitFetch.self, SubmitPush.self, SubmitUpload.self, SubmitRun.self]
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
    @OptionGroup(title: "Retries, timeouts and rate") var transfer: TransferOptions

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
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            // A job carries one value per header name; curl would send both, lulld one.
            if let given = result.keys.first(where: { $0.lowercased() == name.lowercased() }) {
                throw ValidationError(
                    "header \"\(given)\" is given twice; a job carries one value per header name: join the values with a comma if the header allows it"
                )
            }
            result[name] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
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
    if output.json {
        try printJSON(try await connection.withClient { try await $0.submit(submission) })
    } else {
        let job = try await connection.withClient { try await $0.submit(submission, answer: SubmissionReceipt.self) }
        print("job \(job.id) \(job.state.rawValue); follow it with lullctl watch \(job.id)")
    }
}
