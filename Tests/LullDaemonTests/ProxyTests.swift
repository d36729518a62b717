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

        let proxy = try ConnectProxy.start(upstreamPort: origin.port)
        defer { proxy.stop() }

        try await withDaemon(environment: [
            "HTTP_PROXY": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": "127.0.0.1,localhost",
        ]) { daemon, client in
            // A name that resolves nowhere: only the proxy can have reached it.
            let proxied = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://files.lull-proxy-test.invalid/proxied",
                    destination: daemon.directory.appendingPathComponent("p").path,
                    headers: ["Authorization": "Bearer do-not-log"]
                )
            )
            let bypassing = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: origin.url("/direct"),
                    destination: daemon.directory.appendingPathComponent("d").path
                )
            )
            #expect(
                try await awaitJob(proxied.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30)).state
                    == .succeeded
            )
            #expect(
                try await awaitJob(bypassing.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30)).state
                    == .succeeded
            )
            #expect(try Data(contentsOf: daemon.directory.appendingPathComponent("p")) == Data(viaProxy))
            #expect(try Data(contentsOf: daemon.directory.appendingPathComponent("d")) == Data(direct))

            let tunnels = try proxy.log()
            #expect(
                tunnels.count == 1 && tunnels[0].contains("\"CONNECT\"")
                    && tunnels[0].contains("files.lull-proxy-test.invalid:80"),
                "one tunnel, to the named host: \(tunnels)"
            )
            #expect(origin.requests.map(\.uri).sorted() == ["/direct", "/proxied"])
            #expect(origin.requests.first { $0.uri == "/proxied" }?.header("authorization") == "Bearer do-not-log")
            #expect(!daemon.log().contains("do-not-log"), "credentials never reach the log")
        }
    }

    /// `http_proxy=http://user:password@host:port`: the proxy gets the (percent-decoded) user and
    /// password as `Proxy-Authorization: Basic`, and without them answers 407.
    @Test func proxyCredentialsInTheURLAreSentToTheProxy() async throws {
        let origin = try await TestHTTPServer.start()
        defer { Task { await origin.stop() } }
        let content = TestHTTPServer.bytes(count: 20_000, seed: 5)
        origin.serve("/behind-auth", content)
        let proxy = try ConnectProxy.start(upstreamPort: origin.port, credentials: "lull@test:s:cret")
        defer { proxy.stop() }

        try await withDaemon(environment: ["http_proxy": "http://lull%40test:s%3Acret@127.0.0.1:\(proxy.port)"]) {
            daemon,
            client in
            let destination = daemon.directory.appendingPathComponent("a").path
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://files.lull-proxy-test.invalid/behind-auth",
                    destination: destination,
                    retry: RetrySettings(maxAttempts: 1)
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
            let tunnels = try proxy.log()
            #expect(
                tunnels.count == 1 && tunnels[0].contains(#""proxy-authorization": "Basic bHVsbEB0ZXN0OnM6Y3JldA==""#),
                "\(tunnels)"
            )
            #expect(
                !daemon.log().contains("s:cret") && !daemon.log().contains("s%3Acret"),
                "the password never reaches the log"
            )
        }
        // A wrong password: retrying cannot help, so the job fails at once and says what to check.
        try await withDaemon(environment: ["http_proxy": "http://lull%40test:wrong@127.0.0.1:\(proxy.port)"]) {
            daemon,
            client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://files.lull-proxy-test.invalid/behind-auth",
                    destination: daemon.directory.appendingPathComponent("b").path
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(30))
            #expect(done.state == .failed && done.attempts == 1)
            #expect(
                done.error?.code == "proxy_auth_failed" && done.error?.retryable == false,
                "\(String(describing: done.error))"
            )
        }
    }
}

/// A job's own `timeouts.connect_seconds` bounds its connection attempts, not the daemon's
/// default (15 s). The server is a loopback listener whose accept queue is full, so the
/// kernel drops further handshakes and a connect hangs until someone gives up.
@Suite struct ConnectTimeoutTests {
    @Test func aJobsConnectTimeoutIsItsOwn() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                try #require(bind(listener, raw, length) == 0)
                try #require(listen(listener, 0) == 0)
                try #require(getsockname(listener, raw, &length) == 0)
            }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue (never accepted): later handshakes go unanswered.
        var fillers: [Int32] = []
        defer { fillers.forEach { close($0) } }
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue), 0)
            fillers.append(filler)
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    _ = connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        try await Task.sleep(for: .milliseconds(100))

        try await withDaemon { daemon, client in
            let started = ContinuousClock.now
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:\(port)/never",
                    destination: daemon.directory.appendingPathComponent("n").path,
                    retry: RetrySettings(maxAttempts: 1),
                    timeouts: TimeoutSettings(connectSeconds: 1)
                )
            )
            let failed = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(20))
            let elapsed = ContinuousClock.now - started
            print("a 1 s connect timeout failed the job after \(elapsed)")
            #expect(failed.state == .failed)
            #expect(failed.error?.code == "connect_timeout", "\(String(describing: failed.error))")
            #expect(elapsed < .seconds(8), "the job's 1 s, not the daemon's 15 s")
        }
    }
}
