import Foundation

/// A certificate authority made with `openssl` at test time, and server certificates it
/// signs: for an IP address (subjectAltName), valid now or already expired.
public struct TestCertificates: Sendable {
    public let directory: String
    /// The authority's certificate, PEM: what a job names as its `ca_file`.
    public var caFile: String { directory + "/ca.pem" }

    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/ca.key", "-out",
            directory + "/ca.pem",
            "-days", "2", "-subj", "/CN=Lull Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
    }

    /// A certificate for `ip` signed by the authority; `expired`: its end lies a day in the past.
    public func server(_ name: String, ip: String, expired: Bool = false) throws -> (certificate: String, key: String) {
        let base = directory + "/" + name
        try Self.openssl([
            "req", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key", "-out", base + ".csr", "-subj",
            "/CN=\(ip)",
        ])
        try "subjectAltName=IP:\(ip)\n".write(toFile: base + ".ext", atomically: true, encoding: .utf8)
        try Self.openssl([
            "x509", "-req", "-in", base + ".csr", "-CA", caFile, "-CAkey", directory + "/ca.key", "-CAcreateserial",
            "-out", base + ".pem", "-days", expired ? "-1" : "1", "-extfile", base + ".ext",
        ])
        return (base + ".pem", base + ".key")
    }

    private static func openssl(_ arguments: [String]) throws {
        let made = try CommandRunner.run(TLSServerProcess.openssl, arguments)
        guard made.status == 0 else {
            throw ServerProcessError("openssl \(arguments.first ?? "") failed: \(made.stderr)")
        }
    }
}

/// Python's `http.server` wrapped in TLS on a loopback port (`Tests/Fixtures/tls_file_server.py`),
/// serving the files of a directory with a given certificate.
public final class TLSFileServer: @unchecked Sendable {
    public let port: Int
    private var process: Process?

    public init(script: String, certificate: String, key: String, root: String, timeout: Duration = .seconds(20)) throws
    {
        port = try Socket.freeLoopbackPort()
        process = try ServerLaunch.start(
            "TLS file server",
            executable: "/usr/bin/env",
            arguments: ["python3", script, String(port), certificate, key, root],
            port: port,
            timeout: timeout
        )
    }

    public func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    public func stop() { ServerLaunch.kill(process) }
}
