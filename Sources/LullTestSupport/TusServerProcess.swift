#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// tuspyserver (a tus 1.0 implementation on FastAPI/uvicorn that this project did not write),
/// run from `Tests/Fixtures/tus_server.py` on a loopback port, so uploads are tested against a
/// real third-party server that can also be crashed and restarted.
public final class TusServerProcess: @unchecked Sendable {
    public let port: Int
    public let filesDirectory: String
    private let script: String
    private var process: Process?

    /// Whether Python can import tuspyserver and uvicorn here.
    public static var isAvailable: Bool {
        (try? CommandRunner.run("/usr/bin/env", ["python3", "-c", "import tuspyserver, uvicorn"]).status) == 0
    }

    public init(script: String, filesDirectory: String) throws {
        self.script = script
        self.filesDirectory = filesDirectory
        try FileManager.default.createDirectory(atPath: filesDirectory, withIntermediateDirectories: true)
        port = try Self.freePort()
    }

    public var endpoint: String { "http://127.0.0.1:\(port)/files" }

    /// Starts the server and returns once it accepts connections.
    public func start(timeout: Duration = .seconds(20)) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, String(port), filesDirectory]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if Self.accepts(port) { return }
            guard process.isRunning else { throw TusServerError("tus server exited with \(process.terminationStatus)") }
            usleep(50_000)
        }
        throw TusServerError("tus server did not listen on \(port) within \(timeout)")
    }

    /// SIGKILL: the server crashes mid-request.
    public func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The bytes the server stored for the upload at `uploadURL`.
    public func storedFile(for uploadURL: String) -> String {
        filesDirectory + "/" + (uploadURL.split(separator: "/").last.map(String.init) ?? "")
    }

    private static func freePort() throws -> Int {
        let socket = try Socket.listenLoopback()
        defer { socket.close() }
        return socket.port
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

public struct TusServerError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
