import Foundation
import LullTestSupport

/// What an idle queue costs: voluntary context switches (all threads) and RSS of lulld holding
/// 10,000 jobs that wait on AC power, beside a tsp server holding 10,000 queued jobs.
enum IdleBenchmark {
    struct Idle {
        var switches: Int64
        var rss: Int64
    }

    static func run(quick: Bool, progress: (String) -> Void) throws -> String {
        let jobs = 10_000
        // tsp cannot hold 10,000: each queued job keeps a waiting client process connected to the
        // server, which accepts about 1,000 connections (MAXCONN); a client past that blocks.
        let tspJobs = 900
        let window = quick ? 15.0 : 60.0
        let perMinute = 60 / window

        // A laptop on battery, from a sysfs fixture; every job requires AC.
        let power = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-bench-power-\(UUID().uuidString.prefix(6))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: power) }
        try writeBatteryFixture(at: power)
        let daemon = try DaemonProcess(
            config: "[limits]\nmax_concurrent = 4\n[sensors]\npower_supply_root = \"\(power)\"\n"
        )
        defer { daemon.remove() }
        try daemon.start()
        progress("idle: submitting \(jobs) jobs that require AC (the daemon is on battery)")
        let connection = try RawHTTPConnection(socketPath: daemon.socketPath)
        for first in stride(from: 0, to: jobs, by: 500) {
            let status = try connection.roundTrip(
                RawHTTPConnection.batchRequest(first: first, count: 500, extra: #","requires_ac":true"#)
            )
            guard status == 201 else { throw BenchError("batch submission answered \(status)") }
        }
        try connection.wait("the jobs to wait for AC (the power fixture in use)") {
            String(describing: try connection.json("/v1/jobs/1", "waiting_for") ?? "").contains("on_battery")
        }

        let peers = try PeerQueues()
        defer { peers.stop() }
        let environment = peers.environment
        progress("idle: queueing \(tspJobs) jobs in tsp behind a long-running one")
        _ = try spawnAndWait(["/usr/bin/tsp", "-S", "1"], environment: environment)
        _ = try spawnAndWait(["/usr/bin/tsp", "sleep", "3600"], environment: environment)
        for _ in 0..<tspJobs { _ = try spawnAndWait(["/usr/bin/tsp", "true"], environment: environment) }
        Thread.sleep(forTimeInterval: 2)
        let tspPIDs = peers.tspProcesses()
        guard let server = tspPIDs.first else { throw BenchError("no tsp server found for \(peers.tsSocket)") }
        progress(
            "idle: watching lulld and the tsp server (\(tspPIDs.count) tsp processes) for the same \(Int(window)) s"
        )
        let observed = try observe([daemon.pid, server], seconds: window)
        let (lull, tspServer) = (observed[0], observed[1])

        let lullPerMinute = Double(lull.switches) * perMinute
        let tspPerMinute = Double(tspServer.switches) * perMinute
        let ratio = tspPerMinute > 0 ? String(format: "%.2f", lullPerMinute / tspPerMinute) : "—"
        return """
            | idle for \(Int(window)) s\(quick ? " (scaled to per minute)" : "") | lulld, \(jobs) jobs waiting on AC | tsp server, \(tspJobs) jobs queued | Lull / tsp | target | verdict |
            |---|---|---|---|---|---|
            | voluntary context switches per minute, all threads | \(String(format: "%.0f", lullPerMinute)) | \(String(format: "%.0f", tspPerMinute)) | \(ratio) | ≤ 60 | \(BenchReport.verdict(lullPerMinute <= 60)) |
            | RSS | \(BenchReport.mib(lull.rss)) | \(BenchReport.mib(tspServer.rss)) | — | — | — |
            | processes holding the queue | 1 (\(ThreadCounters.threadCount(of: daemon.pid)) threads) | \(tspPIDs.count) (server + a waiting client per job) | — | — | — |

            Method: lulld reads a sysfs power fixture (`[sensors] power_supply_root`: mains offline, battery
            discharging at 50%) and gets \(jobs) fetch jobs with `requires_ac` through the batch route; 2 s
            after tsp is ready, `voluntary_ctxt_switches` of every thread in `/proc/PID/task/*/status` (read every 250 ms, so
            threads that end or start in the window count too) is summed over one \(Int(window)) s window, for both at once\(quick ? " and scaled to a minute" : ""). tsp gets a private `TS_SOCKET`, one slot
            (`-S 1`), a `sleep 3600` job and \(tspJobs) `true` jobs behind it: tsp cannot hold 10,000, because every
            queued job keeps a client process waiting on a connection to the server, which takes about 1,000
            (a client past that blocks). Only the server process is counted.
            \(BenchReport.machine(quick: quick, peers: ["task-spooler"]))
            """
    }

    /// Voluntary switches of each process over the same `seconds`, and its RSS at the end.
    static func observe(_ pids: [Int32], seconds: Double) throws -> [Idle] {
        let counters = pids.map { ThreadCounters.voluntarySwitches(pid: $0) }
        try ThreadCounters.watch(counters, seconds: seconds)
        return pids.indices.map { Idle(switches: counters[$0].total, rss: ProcessMemory.rss(of: pids[$0])) }
    }

    /// A laptop on battery: mains offline, the system battery discharging at 50%.
    static func writeBatteryFixture(at root: String) throws {
        let supplies: [String: [String: String]] = [
            "AC": ["type": "Mains", "online": "0"],
            "BAT0": ["type": "Battery", "status": "Discharging", "present": "1", "capacity": "50", "scope": "System"],
        ]
        for (name, files) in supplies {
            let directory = root + "/" + name
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (file, value) in files {
                try (value + "\n").write(toFile: directory + "/" + file, atomically: true, encoding: .utf8)
            }
        }
    }
}
