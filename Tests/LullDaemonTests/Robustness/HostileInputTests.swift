import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import NIOCore
import Synchronization
import Testing

/// Clients that do not play by the rules, on the real socket: garbage, half requests, huge
/// headers, slowloris connections, and schemathesis generating requests from docs/openapi.yaml.
/// Every bad request must get a 4xx that names the problem (or, when the bytes are not HTTP at
/// all, a 400 and a closed connection), nothing may hang, and a well-behaved client must keep
/// being served while it happens (its status latency is measured during the attack).
@Suite(.serialized) struct HostileInputTests {
    /// A request no server should have to accept, and the statuses that would be a fair answer.
    struct BadRequest {
        var name: String
        var bytes: [UInt8]
        var statuses: ClosedRange<Int> = 400...499
    }

    static func badRequests() -> [BadRequest] {
        let header = String(repeating: "x", count: 200_000)
        var cases: [BadRequest] = [
            .init(
                name: "not HTTP at all",
                bytes: Array("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}hello\r\n\r\n".utf8)
            ),
            .init(name: "unknown method", bytes: Array("BREW /v1/status HTTP/1.1\r\nHost: lull\r\n\r\n".utf8)),
            .init(name: "HTTP/9.9", bytes: Array("GET /v1/status HTTP/9.9\r\nHost: lull\r\n\r\n".utf8)),
            .init(name: "no version", bytes: Array("GET /v1/status\r\n\r\n".utf8)),
            .init(
                name: "a 200 kB header",
                bytes: Array("GET /v1/status HTTP/1.1\r\nHost: lull\r\nX-Big: \(header)\r\n\r\n".utf8)
            ),
            .init(
                name: "20,000 headers",
                bytes: Array(
                    ("GET /v1/status HTTP/1.1\r\n" + (0..<20_000).map { "X-H\($0): v\r\n" }.joined() + "\r\n").utf8
                )
            ),
            .init(
                name: "a 100 kB URI",
                bytes: Array(
                    "GET /v1/jobs?\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\nHost: lull\r\n\r\n".utf8
                )
            ),
            .init(
                name: "NUL in the request line",
                bytes: Array("GET /v1/st\u{0}atus HTTP/1.1\r\nHost: lull\r\n\r\n".utf8)
            ),
            .init(
                name: "negative Content-Length",
                bytes: Array("POST /v1/jobs HTTP/1.1\r\nHost: lull\r\nContent-Length: -5\r\n\r\n{}".utf8)
            ),
            .init(
                name: "non-numeric Content-Length",
                bytes: Array("POST /v1/jobs HTTP/1.1\r\nHost: lull\r\nContent-Length: ten\r\n\r\n{}".utf8)
            ),
            .init(
                name: "two different Content-Lengths",
                bytes: Array(
                    "POST /v1/jobs HTTP/1.1\r\nHost: lull\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}".utf8
                )
            ),
            .init(
                name: "a bad chunk size",
                bytes: Array(
                    "POST /v1/jobs HTTP/1.1\r\nHost: lull\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
                        .utf8
                )
            ),
            .init(
                name: "a declared 10 GB body",
                bytes: Array("POST /v1/jobs HTTP/1.1\r\nHost: lull\r\nContent-Length: 10000000000\r\n\r\n".utf8)
            ),
            .init(
                name: "a 2 MB chunked body",
                bytes: Array(
                    "POST /v1/jobs HTTP/1.1\r\nHost: lull\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n".utf8
                )
                    + [UInt8](repeating: 0x61, count: 0x200000) + Array("\r\n0\r\n\r\n".utf8)
            ),
            .init(name: "JSON that is an array", bytes: request("POST", "/v1/jobs", body: "[1,2,3]")),
            .init(
                name: "JSON nested 100,000 deep",
                bytes: request("POST", "/v1/jobs", body: String(repeating: "[", count: 100_000))
            ),
            .init(
                name: "invalid UTF-8 in JSON",
                bytes: request(
                    "POST",
                    "/v1/jobs",
                    body: "{\"kind\":\"fetch\",\"url\":\"\u{FFFD}\"}",
                    raw: [0x22, 0xC3, 0x28, 0x22]
                )
            ),
            .init(name: "a job id that overflows", bytes: request("GET", "/v1/jobs/99999999999999999999999")),
            .init(name: "a percent-encoded traversal", bytes: request("GET", "/v1/jobs/%2e%2e%2f%2e%2e")),
            .init(name: "an unknown query parameter", bytes: request("GET", "/v1/status?debug=1")),
            .init(name: "a bad after cursor", bytes: request("GET", "/v1/events?after=-1")),
        ]
        cases.append(
            .init(
                name: "a 2 MB body with Content-Length",
                bytes: request("POST", "/v1/jobs", body: String(repeating: "a", count: 2 << 20))
            )
        )
        return cases
    }

    static func request(_ method: String, _ path: String, body: String? = nil, raw: [UInt8] = []) -> [UInt8] {
        var payload = Array((body ?? "").utf8)
        payload += raw
        // Connection: close, so a correct answer ends the exchange instead of a keep-alive wait.
        var text = "\(method) \(path) HTTP/1.1\r\nHost: lull\r\nConnection: close\r\n"
        if body != nil { text += "Content-Type: application/json\r\nContent-Length: \(payload.count)\r\n" }
        return Array((text + "\r\n").utf8) + payload
    }

    /// Status round trips of a well-behaved client, and whatever went wrong with them.
    final class StatusProbe: Sendable {
        let samples = Mutex<[Duration]>([])
        let errors = Mutex<[String]>([])

        /// Asks for the status, one request after another, until cancelled.
        func run(_ client: LullClient) async {
            while !Task.isCancelled {
                let began = ContinuousClock.now
                do {
                    _ = try await client.status()
                    samples.withLock { $0.append(ContinuousClock.now - began) }
                } catch {
                    if !Task.isCancelled { errors.withLock { $0.append("\(error)") } }
                }
            }
        }

        var summary: LatencySummary { LatencySummary(samples.withLock { $0 }) }
    }

    @Test func badBytesGetA4xxNamingTheProblemAndOthersAreStillServed() async throws {
        let slowlorisCount = TestScale.pick(quick: 400, long: 4000)
        let garbageCount = TestScale.pick(quick: 300, long: 5000)
        let seed = TestScale.seed()
        var random = SeededGenerator(seed: seed)
        try await withDaemon(config: holdEverything) { daemon, client in
            // Before: how fast a status is when nobody attacks.
            let baseline = StatusProbe()
            let quiet = Task { await baseline.run(client) }
            try await Task.sleep(for: .seconds(1))
            quiet.cancel()
            await quiet.value

            let during = StatusProbe()
            let prober = LullClient(socketPath: daemon.socketPath)
            let measuring = Task { await during.run(prober) }

            // Slowloris: many connections that send half a request header, then a byte now and then.
            var slow: [UnixSocketConnection] = []
            for index in 0..<slowlorisCount {
                let connection = try UnixSocketConnection(path: daemon.socketPath)
                connection.send(
                    index % 2 == 0
                        ? "GET /v1/status HTTP/1.1\r\nHost: lull\r\nX-Slow: "
                        : "POST /v1/jobs HTTP/1.1\r\nContent-Length: 500\r\n\r\n{\"kind\":"
                )
                slow.append(connection)
            }
            for connection in slow { connection.send("a") }

            // Named bad requests: each must get a 4xx with a JSON error that says what is wrong.
            var answered: [String] = []
            for bad in Self.badRequests() {
                let connection = try UnixSocketConnection(path: daemon.socketPath)
                defer { connection.close() }
                connection.send(bad.bytes)
                let (reply, _) = connection.receive(timeout: .seconds(10))
                let status = UnixSocketConnection.status(of: reply)
                #expect(
                    status.map { bad.statuses.contains($0) } == true,
                    "\(bad.name): answered \(status.map(String.init) ?? "nothing")"
                )
                let body = Self.body(of: reply)
                let detail = try? JSONDecoder().decode(APIErrorBody.self, from: Data(body)).error
                #expect(
                    detail.map { !$0.message.isEmpty && !$0.code.isEmpty } == true,
                    "\(bad.name): body \(String(decoding: body.prefix(200), as: UTF8.self))"
                )
                answered.append("\(bad.name) → \(status.map(String.init) ?? "-") \(detail?.code ?? "")")
            }

            // Random garbage and truncated valid requests: an answer or a close, never a hang.
            let valid = Self.request(
                "POST",
                "/v1/jobs",
                body: #"{"kind":"fetch","url":"http://127.0.0.1/x","destination":"/tmp/x"}"#
            )
            var garbageAnswers: [Int: Int] = [:]
            let garbageBegan = ContinuousClock.now
            for round in 0..<garbageCount {
                let connection = try UnixSocketConnection(path: daemon.socketPath)
                defer { connection.close() }
                let bytes: [UInt8] =
                    round % 2 == 0
                    ? (0..<Int.random(in: 1...4096, using: &random)).map { _ in
                        UInt8.random(in: 0...255, using: &random)
                    }
                    : Array(valid.prefix(Int.random(in: 1..<valid.count, using: &random)))
                connection.send(bytes)
                connection.shutdownWriting()
                let (reply, closed) = connection.receive(timeout: .seconds(10))
                let status = UnixSocketConnection.status(of: reply) ?? 0
                garbageAnswers[status, default: 0] += 1
                #expect(closed || status != 0, "round \(round) (seed \(seed)): neither answered nor closed in 10 s")
                #expect(
                    status == 0 || (400...499).contains(status),
                    "round \(round) (seed \(seed)): answered \(status)"
                )
            }

            let garbageTook = ContinuousClock.now - garbageBegan
            // The slowloris connections are still open; the daemon still serves.
            _ = try await client.status()
            for connection in slow { connection.close() }
            measuring.cancel()
            await measuring.value
            await prober.shutdown()

            let before = baseline.summary
            let attacked = during.summary
            let errors = baseline.errors.withLock { $0 } + during.errors.withLock { $0 }
            print(
                """
                robustness: hostile input: \(Self.badRequests().count) malformed requests, \(garbageCount) garbage/truncated \
                connections in \(garbageTook) (answers by status: \(garbageAnswers.sorted { $0.key < $1.key })), \(slowlorisCount) slowloris \
                connections, seed \(seed); status latency quiet \(before), under attack \(attacked)
                """
            )
            print("robustness: bad requests: " + answered.joined(separator: "; "))
            #expect(errors.isEmpty, "a well-behaved client got errors: \(errors.prefix(5))")
            #expect(attacked.count >= 20, "the well-behaved client was barely served: \(attacked)")
            #expect(attacked.percentile(0.99) < .seconds(1), "status p99 under attack: \(attacked)")
            #expect(daemon.process?.isRunning == true)
        }
    }

    /// The body of an HTTP response (after the blank line), as far as it arrived.
    static func body(of reply: [UInt8]) -> [UInt8] {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard reply.count >= 4 else { return [] }
        for index in 0...(reply.count - 4) where Array(reply[index..<(index + 4)]) == separator {
            return Array(reply[(index + 4)...])
        }
        return []
    }

    static var schemathesisAvailable: Bool {
        (try? CommandRunner.run("/usr/bin/env", ["python3", "-m", "schemathesis.cli", "--version"]).status) == 0
    }

    static let openAPI = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml").path

    static let schemathesisConfig = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/schemathesis.toml").path

    /// HTTP/1.1 lets a client send its next requests before the answers come (pipelining). The
    /// server reads one request at a time on a connection, so the answers come in request order,
    /// a bad request in the middle is answered without disturbing the ones around it, and
    /// `Connection: close` on the last one ends the exchange.
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            let connection = try UnixSocketConnection(path: daemon.socketPath)
            defer { connection.close() }
            func request(_ method: String, _ path: String, body: String? = nil, close: Bool = false) -> [UInt8] {
                HTTPFraming.request(
                    method,
                    path,
                    headers: body == nil ? [] : [("Content-Type", "application/json")],
                    body: body.map { Array($0.utf8) },
                    close: close
                )
            }
            let fetch = #"{"kind":"fetch","url":"http://127.0.0.1:9/p","destination":"/tmp/lull-pipelined"}"#
            let burst =
                request("POST", "/v1/jobs", body: fetch) + request("GET", "/v1/jobs/1")
                + request("POST", "/v1/jobs", body: "{not json") + request("GET", "/v1/status", close: true)
            #expect(connection.send(burst))
            let received = connection.receive(timeout: .seconds(10))
            #expect(received.closed, "Connection: close on the last request ends the connection")
            let (answers, rest) = try Self.responses(in: received.bytes)
            #expect(answers.map(\.status) == [201, 200, 400, 200])
            #expect(answers.count == 4 && answers[1].body.contains(#""destination":"/tmp/lull-pipelined""#))
            #expect(answers.count == 4 && answers[2].body.contains("malformed_json"))
            #expect(answers.count == 4 && answers[3].body.contains(#""queued":1"#))
            #expect(rest.isEmpty)
        }
    }

    /// Bytes that are not HTTP right behind a good request: the good one is carried out and
    /// answered first, then the error comes and the connection closes. Sent at once, the error
    /// would read as the answer to the submission, which the daemon still commits.
    @Test func garbageBehindAGoodRequestIsAnsweredAfterIt() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let connection = try UnixSocketConnection(path: daemon.socketPath)
            defer { connection.close() }
            let fetch = #"{"kind":"fetch","url":"http://127.0.0.1:9/g","destination":"/tmp/lull-garbage-behind"}"#
            let good = HTTPFraming.request(
                "POST",
                "/v1/jobs",
                headers: [("Content-Type", "application/json")],
                body: Array(fetch.utf8)
            )
            #expect(connection.send(good + Array("\u{1}\u{2} NOT HTTP\r\n\r\n".utf8)))
            let received = connection.receive(timeout: .seconds(10))
            #expect(received.closed, "the connection closes after the error")
            let answers = try Self.responses(in: received.bytes).answers
            #expect(answers.map(\.status) == [201, 400])
            #expect(answers.count == 2 && answers[1].body.contains("malformed_request"))
            #expect(try await client.status().jobs["queued"] == 1)

            // Behind a request that ends the connection, nothing more is said.
            let closing = try UnixSocketConnection(path: daemon.socketPath)
            defer { closing.close() }
            #expect(
                closing.send(
                    HTTPFraming.request("GET", "/v1/status", headers: [], body: nil, close: true)
                        + Array("\u{1}\u{2} NOT HTTP\r\n\r\n".utf8)
                )
            )
            let afterClose = closing.receive(timeout: .seconds(10))
            #expect(afterClose.closed)
            let (statuses, rest) = try Self.responses(in: afterClose.bytes)
            #expect(statuses.map(\.status) == [200] && rest.isEmpty, "answers: \(statuses.map(\.status))")
        }
    }

    /// The whole HTTP responses at the start of `bytes`, and what follows them.
    static func responses(in bytes: [UInt8]) throws -> (answers: [(status: Int, body: String)], rest: [UInt8]) {
        var rest = bytes
        var answers: [(status: Int, body: String)] = []
        while let response = try HTTPFraming.response(in: rest) {
            answers.append((response.status, String(decoding: rest[response.body], as: UTF8.self)))
            rest.removeFirst(response.end)
        }
        return (answers, rest)
    }

    /// schemathesis generates valid and invalid requests from docs/openapi.yaml and checks the
    /// answers against it: no 5xx, documented statuses and content types, responses matching
    /// their schemas, invalid data refused. A loopback TCP front carries it to the Unix socket.
    @Test(.enabled(if: schemathesisAvailable, "needs python3 with schemathesis (make test installs it)"))
    func schemathesisFindsNothingAgainstTheLiveSocket() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let front = try await CuttingProxy.start(
                forwardingTo: try SocketAddress(unixDomainSocketPath: daemon.socketPath)
            )
            defer { Task { await front.stop() } }
            let examples = TestScale.pick(quick: 15, long: 300)
            let result = try CommandRunner.run(
                "/usr/bin/env",
                [
                    "python3", "-m", "schemathesis.cli", "--no-color", "--config-file", Self.schemathesisConfig,
                    "run", Self.openAPI, "--url", "http://127.0.0.1:\(front.port)",
                    "--max-examples", String(examples), "--max-time", String(TestScale.pick(quick: 60, long: 1200)),
                    "--request-timeout", "10", "--seed", "1",
                    "--exclude-path", "/v1/events",
                ],
                environment: ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 }
            )
            let tail = result.stdout.split(separator: "\n").suffix(60).joined(separator: "\n")
            print(
                "robustness: schemathesis (\(examples) examples per operation):\n\(tail)\n\(result.stderr.suffix(2000))"
            )
            #expect(result.status == 0, "schemathesis found problems (see above)")
            #expect(daemon.process?.isRunning == true)
            _ = try await client.status()
        }
    }
}
