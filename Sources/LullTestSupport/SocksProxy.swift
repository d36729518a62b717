import Foundation

/// microsocks (from Debian), a SOCKS5 proxy without authentication, on a loopback port. It
/// writes a line for each connection it makes on a client's behalf ("connected to HOST:PORT"),
/// which the test reads.
public final class SocksProxy: @unchecked Sendable {
    public static let executable = "/usr/bin/microsocks"
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public let port: Int
    private let logPath: String
    private var process: Process?

    public init() throws {
        port = try Socket.freeLoopbackPort()
        logPath =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "lull-microsocks-\(UUID().uuidString.prefix(8)).log"
            ).path
    }

    public func start(timeout: Duration = .seconds(10)) throws {
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            throw ServerProcessError("cannot create \(logPath)")
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }
        process = try ServerLaunch.start(
            "microsocks",
            executable: Self.executable,
            arguments: ["-i", "127.0.0.1", "-p", String(port)],
            port: port,
            timeout: timeout,
            output: log
        )
    }

    public func stop() {
        ServerLaunch.kill(process)
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// The "HOST:PORT" of each connection made for a client so far.
    public func connections() -> [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            line.range(of: "connected to ").map { String(line[$0.upperBound...]) }
        }
    }
}
