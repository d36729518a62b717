import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Every way a network can let a transfer down, each in one job with short timeouts: the job
/// must end succeeded or failed with a precise code, and within its timeouts plus a margin.
@Suite(.serialized) struct NetworkFaultTests {
    struct Case: Sendable {
        var name: String
        var submission: JobSubmission
        /// Acceptable end: the state and, for failures, the codes that name this fault.
        var state: JobState
        var codes: Set<String> = []
        /// The longest the job may take from submission to its end.
        var bound: Duration

        /// A job that must fail with one of `codes`, within the bound of its attempts.
        static func fails(_ name: String, _ submission: JobSubmission, with codes: Set<String>) -> Case {
            Case(
                name: name,
                submission: submission,
                state: .failed,
                codes: codes,
                bound: NetworkFaultTests.bound(attempts: submission.retry?.maxAttempts ?? 1)
            )
        }
    }

    /// connect 2 s, idle 1 s, total 4 s per attempt.
    static let timeouts = TimeoutSettings(connectSeconds: 2, idleSeconds: 1, totalSeconds: 4)
    /// Worst case of a job with `attempts` attempts: every attempt runs into the total timeout,
    /// plus the (tiny) backoffs and a margin for a loaded machine.
    static func bound(attempts: Int) -> Duration { .seconds(4 * attempts + 3) }

    @Test func everyFaultEndsWithAPreciseReasonWithinItsTimeouts() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let resetting = try ResettingListener()
        defer { resetting.stop() }
        let silent = try Socket.listenLoopback()
        defer { silent.close() }
        let closedPort = try Socket.freeLoopbackPort()
        let megabyte = TestHTTPServer.bytes(count: 1 << 20, seed: 31)
        server.route("/stall", .init(body: megabyte, faults: [.stallAfter(1000), .stallAfter(1000)]))
        server.route("/truncated", .init(body: megabyte, faults: [.cutAfter(4096)]))
        server.route(
            "/resumable",
            .init(body: megabyte, etag: "\"r1\"", faults: [.cutAfter(65_536), .cutAfter(300_000)])
        )
        server.route(
            "/drip",
            .init(
                body: megabyte,
                faults: [.drip(bytes: 200, every: .milliseconds(100)), .drip(bytes: 200, every: .milliseconds(100))]
            )
        )
        server.route("/broken", .init(faults: Array(repeating: .status(500), count: 4)))
        server.route("/upload-cut", .init(faults: [.cutUploadAfter(65_536), .cutUploadAfter(65_536)]))

        try await withDaemon(config: fastRetries + "\n[limits]\nmax_concurrent = 32\nmax_per_host = 32\n") {
            daemon,
            client in
            let tls =
                TLSServerProcess.isAvailable
                ? try TLSServerProcess(directory: daemon.directory.appendingPathComponent("tls").path) : nil
            try tls?.start()
            defer { tls?.stop() }
            let source = daemon.directory.appendingPathComponent("upload.bin").path
            try Data(TestHTTPServer.bytes(count: 1 << 20, seed: 32)).write(to: URL(fileURLWithPath: source))
            func fetch(_ name: String, _ url: String, attempts: Int, sha256: String? = nil) -> JobSubmission {
                JobSubmission(
                    kind: .fetch,
                    url: url,
                    destination: daemon.directory.appendingPathComponent("f-\(name)").path,
                    label: name,
                    sha256: sha256,
                    retry: RetrySettings(maxAttempts: attempts),
                    timeouts: Self.timeouts
                )
            }
            var cases: [Case] = [
                .fails("reset", fetch("reset", resetting.url("/x"), attempts: 2), with: ["connection_reset"]),
                .fails(
                    "refused",
                    fetch("refused", "http://127.0.0.1:\(closedPort)/x", attempts: 2),
                    with: ["connect_failed"]
                ),
                .fails(
                    "silent server",
                    fetch("silent", "http://127.0.0.1:\(silent.port)/x", attempts: 2),
                    with: ["idle_timeout"]
                ),
                .fails(
                    "stall after headers",
                    fetch("stall", server.url("/stall"), attempts: 2),
                    with: ["idle_timeout"]
                ),
                .fails(
                    "truncated body",
                    fetch("truncated", server.url("/truncated"), attempts: 1),
                    with: ["truncated"]
                ),
                Case(
                    name: "truncated twice, resumed",
                    submission: fetch(
                        "resumable",
                        server.url("/resumable"),
                        attempts: 4,
                        sha256: TestHTTPServer.sha256(megabyte)
                    ),
                    state: .succeeded,
                    bound: Self.bound(attempts: 3)
                ),
                .fails("slow drip", fetch("drip", server.url("/drip"), attempts: 2), with: ["total_timeout"]),
                .fails("5xx every time", fetch("broken", server.url("/broken"), attempts: 3), with: ["http_500"]),
                .fails("DNS failure", fetch("dns", "http://nonexistent.invalid/x", attempts: 2), with: ["dns_failed"]),
                .fails(
                    "https to a plain-HTTP port",
                    fetch("tls-plain", "https://127.0.0.1:\(server.port)/stall", attempts: 2),
                    with: ["tls_failed"]
                ),
                .fails(
                    "push to a resetting server",
                    JobSubmission(
                        kind: .push,
                        url: resetting.url("/hook"),
                        body: "x",
                        label: "push-reset",
                        retry: RetrySettings(maxAttempts: 2),
                        timeouts: Self.timeouts
                    ),
                    with: ["connection_reset"]
                ),
                .fails(
                    "upload cut mid-body",
                    JobSubmission(
                        kind: .upload,
                        url: server.url("/upload-cut"),
                        source: source,
                        label: "upload-cut",
                        retry: RetrySettings(maxAttempts: 2),
                        timeouts: Self.timeouts
                    ),
                    with: ["connection_closed", "connection_reset"]
                ),
            ]
            if let tls {
                cases.append(
                    .fails(
                        "self-signed certificate",
                        fetch("tls-self-signed", tls.url, attempts: 2),
                        with: ["tls_untrusted"]
                    )
                )
            }

            var ids: [Int64: Case] = [:]
            for item in cases { ids[try await client.submit(item.submission).id] = item }
            let ended = try await awaitAllTerminal(Set(ids.keys), client: client, timeout: .seconds(90))
            var table: [String] = []
            for (id, item) in ids.sorted(by: { $0.key < $1.key }) {
                let job = try #require(ended[id])
                let took = job.updatedAt.timeIntervalSince(job.createdAt)
                let code = job.error?.code ?? "-"
                let message = job.error?.message ?? ""
                table.append(
                    "\(item.name): \(job.state.rawValue) \(code) after \(job.attempts) attempts in \(String(format: "%.1f", took)) s — \(message)"
                )
                #expect(job.state == item.state, "\(item.name): \(job.state.rawValue) \(code) \(message)")
                if item.state == .failed {
                    #expect(
                        item.codes.contains(code),
                        "\(item.name): code \(code) (\(message)), wanted one of \(item.codes.sorted())"
                    )
                    #expect(!message.isEmpty)
                }
                #expect(
                    took <= Double(item.bound.components.seconds),
                    "\(item.name) took \(took) s, bound \(item.bound)"
                )
            }
            print("robustness: network faults:\n  " + table.joined(separator: "\n  "))
            #expect(
                !FileManager.default.fileExists(atPath: daemon.directory.appendingPathComponent("f-truncated").path)
            )
        }
    }
}
