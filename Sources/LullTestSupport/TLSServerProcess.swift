#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `openssl s_server` on a loopback port with a freshly made self-signed certificate: an HTTPS
/// server that no client trusting the system's certificate authorities should accept.
public final class TLSServerProcess: @unchecked Sendable {
    public static let openssl = "/usr/bin/openssl"
    public let port: Int
    private let directory: String
    private var process: Process?

    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: openssl) }

    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Socket.freeLoopbackPort()
    }

    public var url: String { "https://127.0.0.1:\(port)/" }

    public func start(timeout: Duration = .seconds(20)) throws {
        let key = directory + "/key.pem"
        let certificate = directory + "/cert.pem"
        let made = try CommandRunner.run(Self.openssl, [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
            "-days", "1", "-subj", "/CN=127.0.0.1",
        ])
        guard made.status == 0 else { throw ServerProcessError("openssl req failed: \(made.stderr)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.openssl)
        process.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-www", "-quiet"]
        process.standardInput = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if Socket.accepts(port) { return }
            guard process.isRunning else { throw ServerProcessError("openssl s_server exited with \(process.terminationStatus)") }
            usleep(50_000)
        }
        throw ServerProcessError("openssl s_server did not listen on \(port) within \(timeout)")
    }

    /// SIGKILL: children of the test process may inherit a signal mask that blocks SIGTERM.
    public func stop() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
