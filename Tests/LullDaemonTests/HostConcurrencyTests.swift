import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// `max_per_host` is how many transfers to one host are in flight, not a cap the HTTP client's
/// connection pool lowers: its default soft limit (8 a host) once held 16 "running" fetches to 8
/// requests on the wire, the rest waiting in the pool.
@Suite struct HostConcurrencyTests {
    @Test func sixteenRunningFetchesToOneHostAreSixteenRequestsOnTheWire() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let count = 16
        let content = TestHTTPServer.bytes(count: 64 << 10, seed: 16)
        for index in 0..<count {
            // Headers and a first piece, then nothing: each request stays in flight.
            server.route("/f\(index)", .init(body: content, faults: [.stallAfter(1024)]))
        }
        try await withDaemon(config: concurrencyConfig(count)) { daemon, client in
            let directory = daemon.directory.appendingPathComponent("held")
            let jobs = try await submitFetches(count, from: server, into: directory, client: client)
            try await withTimeout(.seconds(60), "\(count) requests to arrive at once") {
                while Set(server.requests.map(\.uri)).count < count {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(Set(server.requests.map(\.uri)) == Set((0..<count).map { "/f\($0)" }))
            for job in jobs { _ = try await client.cancel(job.id) }
        }
    }
}
