import ArgumentParser
import Foundation
import LullAPI
import LullClient

/// How to reach the daemon; shared by every subcommand.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The daemon's control socket.", valueName: "path"))
    var socket: String?

    var socketPath: String {
        socket ?? LullDefaults.clientSocketPath(environment: ProcessInfo.processInfo.environment)
    }

    /// Runs `body` with a client and turns client errors into messages and exit codes.
    func withClient<T>(_ body: (LullClient) async throws -> T) async throws -> T {
        let client = LullClient(socketPath: socketPath)
        do {
            let value = try await body(client)
            await client.shutdown()
            return value
        } catch let error as LullClientError {
            await client.shutdown()
            printError(error.description)
            throw ExitCode(Self.exitCode(for: error))
        } catch {
            await client.shutdown()
            throw error
        }
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

func printError(_ message: String) {
    FileHandle.standardError.write(Data("lullctl: \(message)\n".utf8))
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = WireJSON.encoder()
    encoder.outputFormatting.insert(.prettyPrinted)
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
