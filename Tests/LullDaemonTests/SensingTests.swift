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
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/bulk"),
                    destination: daemon.directory.appendingPathComponent("bulk").path,
                    jobClass: "background"
                )
            )
            let explanation = try await client.explain(job.id)
            #expect(explanation.reasons.map(\.code) == ["cpu_pressure"], "\(explanation.reasons.map(\.text))")
            #expect(explanation.reasons.first?.text.contains("80") == true)
            #expect(explanation.world.pressure.source.contains("PSI"))
            #expect(try metric("lull_sampler_running", on: daemon) == 1, "a job waits on pressure: the sampler runs")
            let cpuPressure = try metrics(on: daemon).first {
                $0.name == "lull_pressure_some_avg10_ratio" && $0.labels["resource"] == "cpu"
            }
            #expect(cpuPressure?.value == 0.8, "PSI's percentage as a ratio")

            // Pressure falls; the sampler's next reading must release the job, no other event.
            try proc.setPressure(cpu: 3, memory: 0)
            let finished = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(20))
            #expect(finished.state == .succeeded)
            #expect(
                try metric("lull_sampler_running", on: daemon) == 0,
                "nothing waits on pressure any more: the loop is gone"
            )
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
            let good = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/file"),
                    destination: daemon.directory.appendingPathComponent("file").path
                )
            )
            let bad = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/gone"),
                    destination: daemon.directory.appendingPathComponent("gone").path
                )
            )
            let done = try await awaitJob(good.id, in: [.succeeded, .failed], client: client)
            #expect(try await awaitJob(bad.id, in: [.succeeded, .failed], client: client).state == .failed)

            let accounting = try #require(done.result?.accounting)
            #expect(accounting.bytesDown.values.reduce(0, +) == Int64(bytes.count), "\(accounting.bytesDown)")
            #expect(accounting.attempts == 1)
            #expect(accounting.wallSeconds > 0)

            // The whole answer passes Prometheus's own linter: HELP and TYPE for every family,
            // counters named `_total`, base units.
            let text = try metricsText(on: daemon)
            let lint = try CommandRunner.run("/usr/bin/env", ["promtool", "check", "metrics"], input: Data(text.utf8))
            #expect(
                lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty,
                "promtool check metrics (exit \(lint.status)):\n\(lint.stdout)\(lint.stderr)"
            )

            let samples = try parseMetrics(text)
            func value(_ name: String, _ labels: [String: String]) -> Double? {
                samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
                }?.value
            }
            func type(_ name: String) -> String? { samples.first { $0.name == name }?.type }
            #expect(value("lull_jobs", ["class": "default", "state": "succeeded"]) == 1)
            #expect(value("lull_jobs", ["class": "default", "state": "failed"]) == 1)
            #expect(
                value("lull_jobs", ["class": "background", "state": "queued"]) == 0,
                "known classes have every state"
            )
            #expect(value("lull_jobs_started_total", ["kind": "fetch"]) == 2)
            #expect(
                value("lull_jobs_finished_total", ["kind": "fetch", "outcome": "failed", "reason": "http_404"]) == 1,
                "\(samples.filter { $0.name.hasPrefix("lull_jobs_finished") })"
            )
            #expect(
                value("lull_jobs_failed_total", ["kind": "fetch", "code": "http_404"]) == 1,
                "\(samples.filter { $0.name.hasPrefix("lull_jobs_failed") })"
            )
            #expect(type("lull_jobs_failed_total") == "counter")
            #expect(value("lull_build_info", ["version": LullVersion.current]) == 1)
            let down = samples.filter { $0.name == "lull_transfer_bytes_total" && $0.labels["direction"] == "down" }
            #expect(down.map(\.value).reduce(0, +) == Double(bytes.count))
            for counter in [
                "lull_scheduler_decisions_total", "lull_scheduler_coalesced_starts_total",
                "lull_scheduler_link_wakeups_total", "lull_sampler_samples_total", "process_cpu_seconds_total",
            ] {
                #expect(type(counter) == "counter", "\(counter)")
            }
            #expect((value("lull_scheduler_decisions_total", [:]) ?? 0) >= 2)
            #expect((value("process_cpu_seconds_total", [:]) ?? 0) > 0)
            #expect((value("process_resident_memory_bytes", [:]) ?? 0) > 1_000_000)
            #expect((value("process_open_fds", [:]) ?? 0) > 3)
            #expect((value("process_max_fds", [:]) ?? 0) >= (value("process_open_fds", [:]) ?? 0))
            let started = value("process_start_time_seconds", [:]) ?? 0
            #expect(abs(started - Date().timeIntervalSince1970) < 600, "process_start_time_seconds \(started)")
            #expect(value("lull_network_connectivity", [:]) != nil)
        }
    }
}

/// A class a reload removed still has its jobs in the store: its series follow them. (Left out
/// of the zero-fill, the cancelled job was counted as queued and cancelled at once, for good.)
@Suite struct MetricsAfterReloadTests {
    @Test func aRemovedClassesCountsFollowItsJobs() async throws {
        try await withDaemon(config: holdEverything + "\n[classes.tmp]\n") { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:9/x",
                    destination: daemon.directory.appendingPathComponent("x").path,
                    jobClass: "tmp"
                )
            )
            #expect(
                try metrics(on: daemon).contains {
                    $0.name == "lull_jobs" && $0.labels["class"] == "tmp" && $0.value == 1
                }
            )
            try holdEverything.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            daemon.reload()
            try await awaitLog(daemon, "policy reloaded")
            _ = try await client.cancel(job.id)
            let samples = try metrics(on: daemon)
            func value(_ state: String) -> Double? {
                samples.first { $0.name == "lull_jobs" && $0.labels["class"] == "tmp" && $0.labels["state"] == state }?
                    .value
            }
            #expect(value("queued") == 0)
            #expect(value("cancelled") == 1)
        }
    }
}

struct MetricSample: Decodable {
    var name: String
    var labels: [String: String]
    var value: Double
    /// The family's `# TYPE`.
    var type: String
}

/// `/metrics` over the socket, parsed by the Prometheus reference parser (prometheus_client).
func metrics(on daemon: DaemonProcess) throws -> [MetricSample] {
    try parseMetrics(try metricsText(on: daemon))
}

/// `/metrics` over the socket, as the daemon wrote it.
func metricsText(on daemon: DaemonProcess) throws -> String {
    let (status, text) = try curl(daemon.socketPath, "GET", "/metrics")
    #expect(status == 200)
    return text
}

func parseMetrics(_ text: String) throws -> [MetricSample] {
    let parser = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/parse_metrics.py").path
    let parsed = try CommandRunner.run("/usr/bin/env", ["python3", parser], input: Data(text.utf8))
    guard parsed.status == 0 else {
        throw TimedOut(description: "the Prometheus parser refused /metrics: \(parsed.stderr)\n\(text)")
    }
    return try JSONDecoder().decode([MetricSample].self, from: Data(parsed.stdout.utf8))
}

/// One unlabelled metric's value.
func metric(_ name: String, on daemon: DaemonProcess) throws -> Double? {
    try metrics(on: daemon).first { $0.name == name }?.value
}

/// Connectivity end to end: lulld runs inside a network namespace of the test's own, its
/// sensors on rtnetlink; taking the veth down must hold network jobs (`offline`) and bringing
/// it up must release them, by netlink events alone.
@Suite(.enabled(if: NetworkNamespace.isAvailable, "needs root and iproute2 for a network namespace"))
struct ConnectivityTests {
    @Test func networkJobsWaitWhileOfflineAndStartWhenTheLinkComesBack() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.tearDown() }
        try namespace.up()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-netns-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = TestHTTPServer.bytes(count: 200_000, seed: 7)
        try Data(bytes).write(to: directory.appendingPathComponent("f"))

        // The server lives in the namespace too, on the peer's address.
        let server = try namespace.serveFiles(from: directory.path, port: Int.random(in: 20_000...40_000))
        defer { server.stop() }
        let url = server.baseURL + "f"

        try namespace.down()
        // No D-Bus here: the daemon falls back to rtnetlink inside the namespace.
        let daemon = try DaemonProcess(
            config: "[sensors]\nbus = \"unix:path=/nonexistent/lull-test-bus\"\n",
            launcher: namespace.launcher
        )
        defer { daemon.remove() }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        do {
            let world = try #require(try await client.status().world)
            #expect(world.network.connectivity == "offline", "\(world.network)")
            #expect(world.network.source.hasPrefix("rtnetlink"))

            let destination = directory.appendingPathComponent("copy").path
            let job = try await client.submit(JobSubmission(kind: .fetch, url: url, destination: destination))
            #expect(try await client.explain(job.id).reasons.map(\.code) == ["offline"])

            // Held offline, the daemon has nothing to do and no timer to poll with.
            let switches = ThreadCounters.voluntarySwitches(pid: daemon.pid)
            try await ThreadCounters.watch([switches], for: .seconds(2))
            let idleSwitches = switches.total
            print("lulld voluntary context switches, all threads, over 2 s offline with a held job: \(idleSwitches)")
            #expect(idleSwitches <= 10, "an offline daemon should sleep; \(idleSwitches) wake-ups in 2 s")
            #expect(try await client.job(job.id).state == .queued)

            let cursor = try await client.events(after: 0).lastSeq
            let before = ContinuousClock.now
            try namespace.up()
            _ = try await awaitEvent(client: client, after: cursor, timeout: .seconds(20), "job \(job.id) starting") {
                $0.jobId == job.id && $0.type == .started
            }
            print("link up → held job started in \(ContinuousClock.now - before)")
            #expect(try await awaitJob(job.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(bytes))
        } catch {
            print("lulld log:\n\(daemon.log())")
            throw error
        }
    }

    /// `--network none`: a command that needs no network runs while the machine is offline;
    /// one that does not say so waits; a transfer cannot say so.
    @Test func aCommandThatNeedsNoNetworkRunsOffline() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.tearDown() }
        try namespace.down()
        try await withDaemon(
            config: "[sensors]\nbus = \"unix:path=/nonexistent/lull-test-bus\"\n",
            launcher: namespace.launcher
        ) { daemon, client in
            func submit(_ arguments: [String]) throws -> CommandResult {
                try CommandRunner.run(
                    DaemonProcess.binary("lullctl"),
                    ["submit"] + arguments.prefix(1) + ["--json", "--socket", daemon.socketPath] + arguments.dropFirst()
                )
            }
            #expect(try await client.status().world?.network.connectivity == "offline")
            let local = try submit(["run", "--network", "none", "--", "true"])
            let waiting = try submit(["run", "--", "true"])
            #expect(local.status == 0 && waiting.status == 0, "\(local.stderr)\(waiting.stderr)")
            let localID = try WireJSON.decoder().decode(JobView.self, from: Data(local.stdout.utf8)).id
            let waitingID = try WireJSON.decoder().decode(JobView.self, from: Data(waiting.stdout.utf8)).id
            let done = try await awaitJob(localID, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded && done.network == .notNeeded)
            #expect(try await client.explain(waitingID).reasons.map(\.code) == ["offline"])
            let fetch = try submit([
                "fetch", "--network", "none", "http://example.org/f", "--output", "/tmp/lull-never",
            ])
            #expect(fetch.status != 0)
            #expect(fetch.stderr.contains("network \"none\" is for run jobs"), "\(fetch.stderr)")
        }
    }
}
