import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

/// How to reach the daemon; shared by every subcommand.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The daemon's control socket.", valueName: "path"))
    var socket: String?

    @Flag(name: .long, help: "Talk to the system instance (/run/lull/lull.sock) even when you have a user instance.")
    var system = false

    // Not --user: `submit --user` is the server's credentials, as in curl.
    @Flag(
        name: .customLong("user-instance"),
        help: "Talk to your user instance only; do not fall back to the system instance."
    )
    var userInstance = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds to wait for the daemon to accept the connection, and then to answer each request, before giving up with exit 3 (default 30, or $LULL_CALL_TIMEOUT; 0.1-3600). Event streams (watch, events --follow) are not limited.",
            valueName: "seconds"
        )
    )
    var callTimeout: Double?

    /// The daemon this command talks to, and how it was found (`SocketDiscovery`).
    var target: SocketDiscovery.Choice {
        SocketDiscovery(environment: CallerEnvironment.all, exists: ServiceDiagnosis.isSocket)
            .choose(flag: socket, instance: system ? .system : userInstance ? .user : nil)
    }

    var socketPath: String { target.path }

    static let timeoutRange = 0.1...3600.0

    func validate() throws {
        if system && userInstance { throw ValidationError("give --system or --user-instance, not both") }
        if let callTimeout, !Self.timeoutRange.contains(callTimeout) {
            throw ValidationError("--call-timeout must be from 0.1 to 3600 seconds; \(callTimeout) is out of range")
        }
        _ = try Self.environmentTimeout()
    }

    /// `--call-timeout`, else `LULL_CALL_TIMEOUT`, else 30 s.
    var timeout: Duration {
        .milliseconds(Int64((callTimeout ?? (try? Self.environmentTimeout()) ?? 30) * 1000))
    }

    private static func environmentTimeout() throws -> Double? {
        guard let text = CallerEnvironment.value("LULL_CALL_TIMEOUT"), !text.isEmpty else { return nil }
        guard let seconds = Double(text), timeoutRange.contains(seconds) else {
            throw ValidationError("LULL_CALL_TIMEOUT must be a number of seconds from 0.1 to 3600; it is \"\(text)\"")
        }
        return seconds
    }

    /// Runs `body` with a client and turns client errors into messages and exit codes.
    /// - Parameter style: blocking socket calls by default: a command that makes one call and
    ///   exits would spend more time starting the event loops than calling (`lullctl submit`
    ///   from a shell loop). Commands that stay (watch, top, events) use the event loops.
    /// - Parameter jobID: the job the command is about, named in the advice that follows an error.
    func withClient<T>(
        style: CallStyle = .blockingSocket,
        about jobID: Int64? = nil,
        _ body: (LullClient) async throws -> T
    ) async throws -> T {
        let target = self.target
        let client = LullClient(socketPath: target.path, timeout: timeout, style: style)
        do {
            let value = try await body(client)
            await client.shutdown()
            return value
        } catch let error as LullClientError {
            await client.shutdown()
            let diagnosis = ServiceDiagnosis.unreachable(error, target: target)
            printError(diagnosis ?? Self.message(for: error, about: jobID, command: Self.invokedCommand()))
            throw ExitCode(Self.exitCode(for: error))
        } catch {
            await client.shutdown()
            throw error
        }
    }

    /// The error in words plus what to do about it, where the daemon's message does not say.
    static func message(for error: LullClientError, about jobID: Int64? = nil, command: String = "<command>") -> String
    {
        guard case .api(_, let detail) = error else { return error.description }
        switch detail.code {
        case "invalid_state":
            return
                "\(detail.message). Nothing was changed; lullctl show \(jobID.map(String.init) ?? "ID") shows where the job stands."
        case "invalid_value", "missing_field", "unknown_field", "malformed_json":
            return "\(detail.message). lullctl \(command) --help lists its options; docs/api.md describes every field."
        default:
            return detail.message
        }
    }

    /// The subcommand as typed (`submit fetch`, `cancel`), for advice that names it.
    static func invokedCommand(_ arguments: [String] = CommandLine.arguments) -> String {
        // A leading `--socket PATH` is moved behind the command first, so PATH is not taken for it.
        let words = Lullctl.connectionOptionsMovedAfterSubcommand(Array(arguments.dropFirst())).filter {
            !$0.hasPrefix("-")
        }
        guard let first = words.first else { return "<command>" }
        if first == "submit", words.count > 1, JobKind.allCases.map(\.rawValue).contains(words[words.startIndex + 1]) {
            return "submit \(words[words.startIndex + 1])"
        }
        return first
    }

    static func exitCode(for error: LullClientError) -> Int32 {
        switch error {
        case .unreachable: 3
        case .api(404, _): 4
        case .api(409, _): 5
        case .api(400, _), .api(413, _): 6
        case .api(429, _): 7
        case .api, .protocolViolation: 1
        }
    }
}

struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print raw JSON instead of a table.")
    var json = false
}

/// A message on standard error; a failure to write it is ignored (there is nowhere to say so).
func printError(_ message: String) {
    var line = "lullctl: \(message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = WireJSON.encoder(sortedKeys: true)
    encoder.outputFormatting.insert(.prettyPrinted)
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
