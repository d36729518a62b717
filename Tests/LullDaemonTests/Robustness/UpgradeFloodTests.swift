import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

/// After a CONNECT or an Upgrade request, NIO's parser stops and keeps every later byte: one
/// local client could grow lulld without bound (a review measured 895 MB in 9 s). The decoder's
/// buffer is bounded, CONNECT is refused, and an Upgrade is ignored: the request is answered
/// and the connection closed.
@Suite(.serialized) struct UpgradeFloodTests {
    static let flood = [UInt8](repeating: 0x41, count: 1 << 20)

    /// Sends up to 256 MiB after `head` and returns how much went before lulld closed, and the
    /// most lulld's allocated memory grew meanwhile.
    private func flood(_ daemon: DaemonProcess, after head: String) throws -> (sent: Int, growth: Int64) {
        let before = allocatedBytes(of: daemon.pid)
        let connection = try UnixSocketConnection(path: daemon.socketPath)
        defer { connection.close() }
        #expect(connection.send(head))
        var sent = 0
        var peak = before
        while sent < 256 << 20, connection.send(Self.flood) {
            sent += Self.flood.count
            peak = max(peak, allocatedBytes(of: daemon.pid))
        }
        return (sent, peak - before)
    }

    @Test func anUpgradedEventStreamCannotGrowTheDaemon() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let (sent, growth) = try flood(
                daemon,
                after:
                    "GET /v1/events HTTP/1.1\r\nHost: lull\r\nAccept: text/event-stream\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\n"
            )
            print(
                "an upgraded event stream: \(sent >> 20) MiB sent before lulld closed, lulld grew \(growth >> 20) MiB"
            )
            #expect(sent < 256 << 20, "lulld took the whole flood")
            #expect(growth < 64 << 20)
            _ = try await client.status()
        }
    }

    @Test func connectIsRefusedAndItsConnectionClosed() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let connection = try UnixSocketConnection(path: daemon.socketPath)
            defer { connection.close() }
            connection.send("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n")
            let (answer, closed) = connection.receive(timeout: .seconds(10))
            #expect(UnixSocketConnection.status(of: answer) == 501)
            #expect(String(decoding: answer, as: UTF8.self).contains("not_supported"))
            #expect(closed)
            let (sent, growth) = try flood(
                daemon,
                after: "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n"
            )
            print("CONNECT: \(sent >> 20) MiB sent before lulld closed, lulld grew \(growth >> 20) MiB")
            #expect(growth < 64 << 20)
            _ = try await client.status()
        }
    }

    /// curl's `--http2` asks to upgrade to h2c: the request is answered over HTTP/1.1.
    @Test func curlAskingForH2cGetsAnHTTP1Answer() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            let result = try CommandRunner.run(
                "/usr/bin/curl",
                [
                    "-sS", "--http2", "--unix-socket", daemon.socketPath, "-o", "/dev/null", "-w",
                    "%{http_code} %{http_version}", "http://lull/v1/status",
                ]
            )
            #expect(result.stdout == "200 1.1", "\(result.stdout) \(result.stderr)")
        }
    }
}
