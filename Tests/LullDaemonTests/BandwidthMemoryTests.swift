import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// 5 (d): a limit holds the stream back where it is, so a limited download costs the daemon no
/// more memory than an unlimited one: the bytes the limit holds back stay in the server and the
/// kernel, not in lulld. The quick form moves 128 MiB, the long one (`LULL_LONG_TESTS=1`) 1 GiB.
@Suite struct BandwidthMemoryTests {
    struct Reading {
        var growth: Int64
        var seconds: Double
    }

    /// The most lulld's allocated memory (`allocatedBytes`) rose over its idle reading while it
    /// fetched `path`, in a daemon of its own, with the daemon's limit at `rate` (none when nil).
    static func growth(fetching path: String, from server: TestHTTPServer, rate: Int?) async throws -> Reading {
        var reading = Reading(growth: 0, seconds: 0)
        let config = rate.map { "[limits]\nmax_bytes_per_second = \($0)\n" }
        try await withDaemon(config: config) { daemon, client in
            let pid = daemon.pid
            let idle = allocatedBytes(of: pid)
            let peak = Task {
                var peak = idle
                while !Task.isCancelled {
                    peak = max(peak, allocatedBytes(of: pid))
                    try? await Task.sleep(for: .milliseconds(20))
                }
                return peak
            }
            let started = ContinuousClock.now
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url(path),
                    destination: daemon.directory.appendingPathComponent("large.bin").path
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(300))
            peak.cancel()
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            reading = Reading(growth: await peak.value - idle, seconds: (ContinuousClock.now - started) / .seconds(1))
            try? FileManager.default.removeItem(atPath: daemon.directory.appendingPathComponent("large.bin").path)
        }
        return reading
    }

    @Test func aLimitedDownloadGrowsTheDaemonNoMoreThanAnUnlimitedOne() async throws {
        let size = TestScale.pick(quick: 128 << 20, long: 1 << 30)
        let rate = TestScale.pick(quick: 32 << 20, long: 64 << 20)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/large.bin", TestHTTPServer.bytes(count: size, seed: 9))
        let unlimited = try await Self.growth(fetching: "/large.bin", from: server, rate: nil)
        let limited = try await Self.growth(fetching: "/large.bin", from: server, rate: rate)
        print(
            "bandwidth: \(size >> 20) MiB fetch, lulld anonymous RSS growth unlimited \(unlimited.growth >> 10) KiB in \(unlimited.seconds) s, limited to \(rate >> 20) MiB/s \(limited.growth >> 10) KiB in \(limited.seconds) s"
        )
        // The limit held: the limited fetch took at least 90% of size / rate.
        #expect(limited.seconds >= Double(size) / Double(rate) * 0.9, "\(limited.seconds) s")
        // One allocator arena's worth of noise either way (4 MiB); a buffered backlog would be
        // far more: at the quick form's rates the server sends 100 MiB ahead within seconds.
        #expect(
            limited.growth <= unlimited.growth + (4 << 20),
            "limited \(limited.growth), unlimited \(unlimited.growth)"
        )
    }
}
