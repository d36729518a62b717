import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Which proxies Lull can use: an http:// one (`ProxyTests`), a SOCKS5 one, and none that would
/// be taken for a plain HTTP proxy when it is not one.
@Suite struct ProxySchemeTests {
    /// `http_proxy=socks5://...` goes through microsocks, a SOCKS5 proxy we did not write, which
    /// resolves the name itself.
    @Test(.enabled(if: SocksProxy.isAvailable, "needs microsocks (make test installs it)"))
    func aSocks5ProxyCarriesTheTransfer() async throws {
        let origin = try await TestHTTPServer.start()
        defer { Task { await origin.stop() } }
        let content = TestHTTPServer.bytes(count: 50_000, seed: 61)
        origin.serve("/via-socks", content)
        let socks = try SocksProxy()
        try socks.start()
        defer { socks.stop() }
        try await withDaemon(environment: ["http_proxy": "socks5://127.0.0.1:\(socks.port)"]) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("s").path
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://localhost:\(origin.port)/via-socks",
                    destination: destination,
                    retry: RetrySettings(maxAttempts: 1)
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
            #expect(socks.connections() == ["localhost:\(origin.port)"], "\(socks.connections())")
        }
    }

    /// An https:// proxy needs TLS to the proxy, which Lull cannot speak. Taken for a plain HTTP
    /// proxy, its user and password went out in the clear in `Proxy-Authorization`; now the
    /// transfers it covers fail at once, naming the variable, and the proxy hears nothing. The
    /// daemon says so when it starts.
    @Test func anHttpsProxyIsRefusedBeforeAnyByteGoesToIt() async throws {
        let origin = try await TestHTTPServer.start()
        defer { Task { await origin.stop() } }
        origin.serve("/never", [1, 2, 3])
        let proxy = try ConnectProxy.start(upstreamPort: origin.port)
        defer { proxy.stop() }
        try await withDaemon(environment: ["HTTP_PROXY": "https://agent:s3cret@127.0.0.1:\(proxy.port)"]) {
            daemon,
            client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: origin.url("/never"),
                    destination: daemon.directory.appendingPathComponent("n").path
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
            #expect(done.state == .failed && done.attempts == 1)
            #expect(done.error?.code == "proxy_unusable", "\(String(describing: done.error))")
            #expect(done.error?.message.contains("HTTP_PROXY") == true, "\(String(describing: done.error))")
            let heard = (try? proxy.log()) ?? []
            #expect(heard.isEmpty, "the proxy heard: \(heard)")
            #expect(origin.requests.isEmpty)
            #expect(daemon.log().contains("HTTP_PROXY cannot be used"))
            #expect(!daemon.log().contains("s3cret"), "the password never reaches the log")
        }
    }
}
