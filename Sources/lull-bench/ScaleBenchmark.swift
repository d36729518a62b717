import Foundation
import LullCore
import LullStore
import LullTestSupport

/// Lull with 10k, 100k and 1M queued jobs: start-up to READY=1 on that store, lulld's RSS, the
/// first page of `GET /v1/jobs`, and the scheduler core's cost of one dispatch decision.
enum ScaleBenchmark {
    struct Row {
        var jobs: Int
        var fillSeconds: Double
        var readySeconds: Double
        var rss: Int64
        var listMilliseconds: [Double]
        var decideMicroseconds: [Double]
        /// In-process `JobScheduler.enqueue`, per job, while growing to this size.
        var enqueueMicroseconds: Double
    }

    static let classes = ["interactive", "default", "utility", "background", "maintenance"]
    static let kinds: [JobKind] = [.fetch, .push, .upload]

    static func run(quick: Bool, progress: (String) -> Void) throws -> String {
        let sizes = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]
        let daemon = try DaemonProcess(config: "[limits]\nmax_concurrent = 0\n")
        defer { daemon.remove() }
        // 0700, as lulld makes it: it refuses a state directory other users may enter.
        try FileManager.default.createDirectory(
            atPath: daemon.stateDirectory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let storePath = daemon.stateDirectory + "/lull.sqlite"
        var scheduler = JobScheduler()
        var rows: [Row] = []
        var filled = 0
        for size in sizes {
            progress("scale \(size): writing \(size - filled) more jobs into the store with SQLiteJobStore")
            let fillSeconds = try timed { try fillStore(at: storePath, from: filled, to: size) }
            filled = size

            progress("scale \(size): starting lulld on the store")
            let readySeconds = try timed { try daemon.start(timeout: .seconds(120)) }
            Thread.sleep(forTimeInterval: 1)
            let rss = ProcessMemory.rss(of: daemon.pid)
            let connection = try RawHTTPConnection(socketPath: daemon.socketPath)
            var list: [Double] = []
            for _ in 0..<20 {
                var status = 0
                list.append(
                    try timed {
                        status = try connection.roundTrip(RawHTTPConnection.request("GET", "/v1/jobs?limit=50"))
                    } * 1000
                )
                guard status == 200 else { throw BenchError("GET /v1/jobs answered \(status)") }
            }
            daemon.stop()

            progress("scale \(size): timing JobScheduler.decide in-process")
            let decisions = quick ? 2_000 : 10_000
            let before = scheduler.queuedCount
            var decide: [Double] = []
            let growSeconds = timed { decide = measureDecisions(&scheduler, queued: size, decisions: decisions) }
            let enqueue = (growSeconds - decide.reduce(0, +) / 1e6) / Double(max(1, size - before)) * 1e6
            rows.append(
                Row(
                    jobs: size,
                    fillSeconds: fillSeconds,
                    readySeconds: readySeconds,
                    rss: rss,
                    listMilliseconds: list,
                    decideMicroseconds: decide,
                    enqueueMicroseconds: enqueue
                )
            )
        }
        return table(rows, quick: quick)
    }

    /// Jobs `from..<to` into the store, 10,000 per transaction, through the store's own code.
    static func fillStore(at path: String, from: Int, to: Int) throws {
        let owner = OwnerID(getuid())
        let created = Date()
        try blocking {
            let store = try SQLiteJobStore(path: path)
            for chunk in stride(from: from, to: to, by: 10_000) {
                let jobs = (chunk..<min(to, chunk + 10_000)).map { n in
                    NewJob(
                        owner: owner,
                        spec: JobSpec(
                            .fetch(
                                FetchJob(
                                    url: "http://host\(n % 5_000).example/scale/\(n)",
                                    destination: "/tmp/lull-bench/scale/\(n)"
                                )
                            ),
                            label: "scale",
                            jobClass: classes[n % classes.count]
                        ),
                        createdAt: created
                    )
                }
                _ = try await store.insert(jobs)
            }
        }
    }

    /// Grows the scheduler to `queued` jobs (5 classes × 20 owners × 3 kinds × 5,000 hosts), then
    /// times `decisions` decisions under a world that changes each time (AC, battery, metered);
    /// the jobs each decision starts finish and come back under new ids, so the queue stays at size.
    static func measureDecisions(_ scheduler: inout JobScheduler, queued: Int, decisions: Int) -> [Double] {
        let now = Date()
        var nextID = Int64(scheduler.queuedCount + scheduler.runningCount + 1) + 10_000_000
        func queuedJob(_ n: Int64) -> QueuedJob {
            QueuedJob(
                id: JobID(n),
                owner: OwnerID(1000 + UInt32(n % 20)),
                kind: kinds[Int(n % 3)],
                className: classes[Int(n % 5)],
                host: "host\(n % 5_000).example"
            )
        }
        while scheduler.queuedCount < queued {
            scheduler.enqueue(queuedJob(nextID), now: now)
            nextID += 1
        }
        let worlds = [
            WorldSnapshot(
                power: PowerState(onBattery: false, source: "bench"),
                network: NetworkState(connectivity: .online, source: "bench")
            ),
            WorldSnapshot(
                power: PowerState(onBattery: true, batteryPercent: 20, source: "bench"),
                network: NetworkState(connectivity: .online, source: "bench")
            ),
            WorldSnapshot(
                power: PowerState(onBattery: false, source: "bench"),
                network: NetworkState(connectivity: .online, metered: true, source: "bench")
            ),
        ]
        var samples: [Double] = []
        samples.reserveCapacity(decisions)
        for index in 0..<decisions {
            let at = now.addingTimeInterval(Double(index) * 0.001)
            let started = DispatchTime.now().uptimeNanoseconds
            let decision = scheduler.decide(world: worlds[index % worlds.count], now: at)
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1000)
            for job in decision.start {
                scheduler.jobFinished(job.id, at: at)
                scheduler.enqueue(queuedJob(nextID), now: at)
                nextID += 1
            }
        }
        return samples
    }

    static func table(_ rows: [Row], quick: Bool) -> String {
        let first = rows[0]
        var lines = ""
        for row in rows {
            let decide = BenchReport.median(row.decideMicroseconds)
            let growth =
                row.jobs == first.jobs
                ? "" : String(format: " (×%.1f)", decide / BenchReport.median(first.decideMicroseconds))
            let isMillion = row.jobs >= 1_000_000
            lines += "| \(BenchReport.grouped(Double(row.jobs))) "
            lines +=
                "| \(String(format: "%.1f", decide)) µs (p99 \(String(format: "%.1f", BenchReport.percentile(row.decideMicroseconds, 0.99))))\(growth) "
            lines += "| \(BenchReport.mib(row.rss)) "
            lines += "| \(String(format: "%.2f", row.readySeconds)) s "
            lines += "| \(BenchReport.spread(row.listMilliseconds, "%.2f ms")) "
            lines += "| \(String(format: "%.1f", row.fillSeconds)) s "
            lines += "| \(String(format: "%.2f", row.enqueueMicroseconds)) µs |"
            if isMillion {
                let met = [decide <= 50, row.rss <= 256 << 20, row.readySeconds <= 2]
                let verdicts = [
                    "decision \(BenchReport.verdict(met[0]))", "RSS \(BenchReport.verdict(met[1]))",
                    "start-up \(BenchReport.verdict(met[2]))",
                ]
                lines += " \(verdicts.joined(separator: ", ")) |\n"
            } else {
                lines += " — |\n"
            }
        }
        return """
            | queued jobs | dispatch decision, median (p99) (growth vs 10k) | lulld RSS after READY | start-up to READY=1 | `GET /v1/jobs?limit=50`, median of 20 (spread) | store fill (offline) | scheduler enqueue per job (in-process) | targets at 1M: decision ≤ 50 µs, RSS ≤ 256 MiB, start-up ≤ 2 s |
            |---|---|---|---|---|---|---|---|
            \(lines)
            Method: the store is filled offline with the store's own code (`SQLiteJobStore.insert`,
            10,000 jobs per transaction; the sizes build on each other) because the API would take too long
            for 1M jobs in the time budget; then a release `lulld` with `max_concurrent = 0` is started on
            it and timed until it says `READY=1` (it loads every queued job into the scheduler before that);
            RSS is `VmRSS` 1 s later; the list latency is a keep-alive request over the Unix socket. The
            decision cost is `JobScheduler.decide` timed in-process (lull-bench links LullCore) on a queue
            of the same size spread over 5 classes × 20 owners × 3 kinds × 5,000 hosts, with the world
            changing every decision (AC, battery 20%, metered) and the started jobs replaced so the
            queue stays at size; \(quick ? "2,000" : "10,000") decisions per size. The enqueue column is the in-process cost of
            adding one job to the scheduler while growing to that size, the part of start-up that is the
            scheduler's (the rest is reading the rows from SQLite).\(quick ? " --quick leaves out 1M, so no target is judged." : "")
            \(BenchReport.machine(quick: quick))
            """
    }
}

/// Runs async work to completion from synchronous benchmark code.
func blocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = ErrorBox()
    Task {
        do { try await body() } catch { failure.record(error) }
        done.signal()
    }
    done.wait()
    if let error = failure.first { throw error }
}
