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
        port = try Socket.freeLoopbackPort()
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
            if Socket.accepts(port) { return }
            guard process.isRunning else { throw ServerProcessError("tus server exited with \(process.terminationStatus)") }
            usleep(50_000)
        }
        throw ServerProcessError("tus server did not listen on \(port) within \(timeout)")
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
}
