import Foundation

/// `Tests/Fixtures/connect_proxy.py`, running until `stop()`.
struct ConnectProxy {
    let port: Int
    private let process: Process
    private let work: URL

    /// `credentials` (`USER:PASSWORD`): the proxy refuses a CONNECT without them with 407.
    static func start(upstreamPort: Int, credentials: String? = nil) async throws -> ConnectProxy {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lull-proxy-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let portFile = work.appendingPathComponent("port").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/connect_proxy.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, portFile, String(upstreamPort), Self.logPath(work)] + (credentials.map { [$0] } ?? [])
        try process.run()
        let proxy = { (port: Int) in ConnectProxy(port: port, process: process, work: work) }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, process.isRunning {
            if let port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap({ Int($0) }) { return proxy(port) }
            try await Task.sleep(for: .milliseconds(50))
        }
        proxy(0).stop()
        throw TimedOut(description: "the proxy did not start")
    }

    private static func logPath(_ work: URL) -> String { work.appendingPathComponent("proxy.log").path }

    /// One JSON line per CONNECT: target and headers.
    func log() throws -> [Substring] {
        try String(contentsOfFile: Self.logPath(work), encoding: .utf8).split(separator: "\n")
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: work)
    }
}
