import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
        let made = try CommandRunner.run(
            Self.openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                "-days", "1", "-subj", "/CN=127.0.0.1",
            ]
        )
        guard made.status == 0 else { throw ServerProcessError("openssl req failed: \(made.stderr)") }
        process = try ServerLaunch.start(
            "openssl s_server",
            executable: Self.openssl,
            arguments: [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-www", "-quiet",
            ],
            port: port,
            timeout: timeout,
            input: Pipe()
        )
    }

    public func stop() { ServerLaunch.kill(process) }
}
