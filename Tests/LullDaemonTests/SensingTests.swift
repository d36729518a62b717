import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Pressure, sampling, per-job accounting and `/metrics`, against the real daemon.
@Suite struct SensingTests {
    @Test func aJobHeldOnPressureStartsWhenItFallsAndTheSamplerStopsAfterwards() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/bulk", TestHTTPServer.bytes(count: 64 * 1024))
        try await withDaemon { daemon, client in
            let proc = try #require(daemon.proc)
            #expect(try metric("lull_sampler_running", on: daemon) == 0, "no job waits on pressure: no sampling loop")

            try proc.setPressure(cpu: 80, memory: 0)
            let job = try await client.submit(JobSubmission(
                kind: .fetch, url: server.url("/bulk"), destination: daemon.directory.appendingPathComponent("bulk").path,
                jobClass: "background"))
            let explanation = try await client.explain(job.id)
            #expect(explanation.reasons.map(\.code) == ["cpu_pressure"], "\(explanation.reasons.map(\.text))")
            #expect(explanation.reasons.first?.text.contains("80") == true)
            #expect(explanation.world.pressure.source.contains("PSI"))
            #expect(try metric("lull_sampler_running", on: daemon) == 1, "a job waits on pressure: the sampler runs")

            // Pressure falls; the sampler's next reading must release the job, no other event.
            try proc.setPressure(cpu: 3, memory: 0)
            let finished = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(20))
            #expect(finished.state == .succeeded)
            #expect(try metric("lull_sampler_running", on: daemon) == 0, "nothing waits on pressure any more: the loop is gone")
        }
    }

    @Test func samplesAreKeptWhileSomeoneWatches() async throws {
        try await withDaemon { daemon, client in
            let first = try await client.samples()
            #expect(first.intervalSeconds == 1)
            let sample = try #require(first.samples.last)
            #expect(sample.daemonRSSBytes > 1_000_000)
            #expect(sample.cpuPressure == 0, "read from the daemon's pressure fixture")
            #expect((sample.memoryTotalBytes ?? 0) > 0)
            // Watching keeps the sampler at one sample per second: the history grows by itself.
            let deadline = ContinuousClock.now + .seconds(15)
            var history = first.samples
            while history.count < 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                history = try await client.samples().samples
            }
            #expect(history.count >= 3, "history: \(history.count) samples")
            #expect(zip(history, history.dropFirst()).allSatisfy { $0.time <= $1.time })
            let status = try await client.status()
            #expect(status.sample != nil)
            #expect(status.world?.pressure.cpu == 0)
            #expect(try metric("lull_sampler_running", on: daemon) == 1)
        }
    }

    @Test func metricsParseAndCountWhatHappened() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let bytes = TestHTTPServer.bytes(count: 300_000)
        server.serve("/file", bytes)
        server.route("/gone", .init(faults: [.status(404)]))
        try await withDaemon { daemon, client in
            let good = try await client.submit(JobSubmission(
                kind: .fetch, url: server.url("/file"), destination: daemon.directory.appendingPathComponent("file").path))
            let bad = try await client.submit(JobSubmission(
                kind: .fetch, url: server.url("/gone"), destination: daemon.directory.appendingPathComponent("gone").path))
            let done = try await awaitJob(good.id, in: [.succeeded, .failed], client: client)
            #expect(try await awaitJob(bad.id, in: [.succeeded, .failed], client: client).state == .failed)

            let accounting = try #require(done.result?.accounting)
            #expect(accounting.bytesDown.values.reduce(0, +) == Int64(bytes.count), "\(accounting.bytesDown)")
            #expect(accounting.attempts == 1)
            #expect(accounting.wallSeconds > 0)

            let samples = try metrics(on: daemon)
            func value(_ name: String, _ labels: [String: String]) -> Double? {
                samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
            }
            #expect(value("lull_jobs", ["class": "default", "state": "succeeded"]) == 1)
            #expect(value("lull_jobs", ["class": "default", "state": "failed"]) == 1)
            #expect(value("lull_jobs", ["class": "background", "state": "queued"]) == 0, "known classes have every state")
            #expect(value("lull_jobs_started_total", ["kind": "fetch"]) == 2)
            #expect(value("lull_jobs_finished_total", ["kind": "fetch", "outcome": "failed", "reason": "http_404"]) == 1,
                    "\(samples.filter { $0.name.hasPrefix("lull_jobs_finished") })")
            let down = samples.filter { $0.name == "lull_transfer_bytes_total" && $0.labels["direction"] == "down" }
            #expect(down.map(\.value).reduce(0, +) == Double(bytes.count))
            #expect((value("lull_process_resident_memory_bytes", [:]) ?? 0) > 1_000_000)
            #expect(value("lull_network_connectivity", [:]) != nil)
        }
    }
}

struct MetricSample: Decodable {
    var name: String
    var labels: [String: String]
    var value: Double
}

/// `/metrics` over the socket, parsed by the Prometheus reference parser (prometheus_client).
func metrics(on daemon: DaemonProcess) throws -> [MetricSample] {
    let (status, text) = try curl(daemon.socketPath, "GET", "/metrics")
    #expect(status == 200)
    let parser = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/parse_metrics.py").path
    let parsed = try CommandRunner.run("/usr/bin/env", ["python3", parser], input: Data(text.utf8))
    guard parsed.status == 0 else { throw TimedOut(description: "the Prometheus parser refused /metrics: \(parsed.stderr)\n\(text)") }
    return try JSONDecoder().decode([MetricSample].self, from: Data(parsed.stdout.utf8))
}

/// One unlabelled metric's value.
func metric(_ name: String, on daemon: DaemonProcess) throws -> Double? {
    try metrics(on: daemon).first { $0.name == name }?.value
}
