import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// tuspyserver (a tus 1.0 implementation on FastAPI/uvicorn that this project did not write),
/// run from `Tests/Fixtures/tus_server.py` on a loopback port, so uploads are tested against a
/// real third-party server that can also be crashed and restarted.
public final class TusServerProcess: @unchecked Sendable {
    public let port: Int
    public let filesDirectory: String
    private let script: String
    /// The largest upload the server accepts (its `Tus-Max-Size`); nil: tuspyserver's default.
    private let maxSize: Int64?
    private var process: Process?

    /// Whether Python can import tuspyserver and uvicorn here.
    public static var isAvailable: Bool {
        (try? CommandRunner.run("/usr/bin/env", ["python3", "-c", "import tuspyserver, uvicorn"]).status) == 0
    }

    public init(script: String, filesDirectory: String, maxSize: Int64? = nil) throws {
        self.script = script
        self.maxSize = maxSize
        self.filesDirectory = filesDirectory
        try FileManager.default.createDirectory(atPath: filesDirectory, withIntermediateDirectories: true)
        port = try Socket.freeLoopbackPort()
    }

    public var endpoint: String { "http://127.0.0.1:\(port)/files" }

    /// Starts the server and returns once it accepts connections.
    public func start(timeout: Duration = .seconds(20)) throws {
        process = try ServerLaunch.start(
            "tus server",
            executable: "/usr/bin/env",
            arguments: ["python3", script, String(port), filesDirectory] + (maxSize.map { [String($0)] } ?? []),
            port: port,
            timeout: timeout
        )
    }

    /// SIGKILL: the server crashes mid-request.
    public func kill() { ServerLaunch.kill(process) }

    /// The bytes the server stored for the upload at `uploadURL`.
    public func storedFile(for uploadURL: String) -> String {
        filesDirectory + "/" + (uploadURL.split(separator: "/").last.map(String.init) ?? "")
    }
}
