import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// `HTTP_PROXY` / `NO_PROXY` as the daemon's environment sets them. A CONNECT proxy
/// (`Tests/Fixtures/connect_proxy.py`) tunnels every target to one test server, so a host name
/// that resolves nowhere can only have been fetched through it; another server is reached directly.
@Suite struct ProxyTests {
    @Test func fetchesGoThroughTheProxyExceptForNoProxyHosts() async throws {
        let origin = try await TestHTTPServer.start()
        defer { Task { await origin.stop() } }
        let viaProxy = TestHTTPServer.bytes(count: 40_000, seed: 3)
        let direct = TestHTTPServer.bytes(count: 30_000, seed: 4)
        origin.serve("/proxied", viaProxy)
        origin.serve("/direct", direct)

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lull-proxy-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let portFile = work.appendingPathComponent("port").path
        let log = work.appendingPathComponent("proxy.log").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/connect_proxy.py").path
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        proxy.arguments = [script, portFile, String(origin.port), log]
        try proxy.run()
        defer {
            kill(proxy.processIdentifier, SIGKILL)
            proxy.waitUntilExit()
        }
        let deadline = ContinuousClock.now + .seconds(10)
        var proxyPort: String?
        while proxyPort == nil, ContinuousClock.now < deadline {
            proxyPort = try? String(contentsOfFile: portFile, encoding: .utf8)
            if proxyPort?.isEmpty ?? true { proxyPort = nil; try await Task.sleep(for: .milliseconds(50)) }
        }
        let port = try #require(proxyPort, "the proxy did not start")

        let daemon = try DaemonProcess(environment: ["HTTP_PROXY": "http://127.0.0.1:\(port)", "NO_PROXY": "127.0.0.1,localhost"])
        defer { daemon.remove() }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        do {
            // A name that resolves nowhere: only the proxy can have reached it.
            let proxied = try await client.submit(JobSubmission(
                kind: .fetch, url: "http://files.lull-proxy-test.invalid/proxied",
                destination: daemon.directory.appendingPathComponent("p").path, headers: ["Authorization": "Bearer do-not-log"]))
            let bypassing = try await client.submit(JobSubmission(
                kind: .fetch, url: origin.url("/direct"), destination: daemon.directory.appendingPathComponent("d").path))
            #expect(try await awaitJob(proxied.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30)).state == .succeeded)
            #expect(try await awaitJob(bypassing.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30)).state == .succeeded)
            #expect(try Data(contentsOf: daemon.directory.appendingPathComponent("p")) == Data(viaProxy))
            #expect(try Data(contentsOf: daemon.directory.appendingPathComponent("d")) == Data(direct))

            let tunnels = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            #expect(tunnels.count == 1 && tunnels[0].contains("\"CONNECT\"") && tunnels[0].contains("files.lull-proxy-test.invalid:80"),
                    "one tunnel, to the named host: \(tunnels)")
            #expect(origin.requests.map(\.uri).sorted() == ["/direct", "/proxied"])
            #expect(origin.requests.first { $0.uri == "/proxied" }?.header("authorization") == "Bearer do-not-log")
            #expect(!daemon.log().contains("do-not-log"), "credentials never reach the log")
        } catch {
            print("lulld log:\n\(daemon.log())")
            throw error
        }
    }
}
