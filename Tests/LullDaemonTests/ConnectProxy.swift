import Foundation
import LullTestSupport

/// `Tests/Fixtures/connect_proxy.py`, running until `stop()`.
struct ConnectProxy {
    let port: Int
    private let process: Process
    private let work: URL

    /// `credentials` (`USER:PASSWORD`): the proxy refuses a CONNECT without them with 407.
    static func start(upstreamPort: Int, credentials: String? = nil) throws -> ConnectProxy {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-proxy-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let portFile = work.appendingPathComponent("port").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/connect_proxy.py").path
        var port: Int?
        do {
            // The proxy binds port 0 and writes the port it got once it listens.
            let process = try ServerLaunch.start(
                "the CONNECT proxy",
                executable: "/usr/bin/python3",
                arguments: [script, portFile, String(upstreamPort), Self.logPath(work)]
                    + (credentials.map { [$0] } ?? []),
                timeout: .seconds(10),
                readiness: "write its port"
            ) {
                port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
                return port != nil
            }
            return ConnectProxy(port: port!, process: process, work: work)
        } catch {
            try? FileManager.default.removeItem(at: work)
            throw error
        }
    }

    private static func logPath(_ work: URL) -> String { work.appendingPathComponent("proxy.log").path }

    /// One JSON line per CONNECT: target and headers.
    func log() throws -> [Substring] {
        try String(contentsOfFile: Self.logPath(work), encoding: .utf8).split(separator: "\n")
    }

    func stop() {
        ServerLaunch.kill(process)
        try? FileManager.default.removeItem(at: work)
    }
}
