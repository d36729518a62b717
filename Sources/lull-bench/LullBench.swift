import ArgumentParser
import Foundation
import LullTestSupport

/// `lull-bench`: measures a release lulld on this machine and writes the results into
/// docs/performance.md between `<!-- bench:NAME:begin -->` / `end` markers.
@main
struct LullBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lull-bench",
        abstract: "Run Lull's benchmarks and record them in docs/performance.md."
    )

    @Flag(name: .long, help: "A smaller, faster run.")
    var quick = false

    @Option(name: .long, help: "The performance document to update (nothing is written if it has no markers).")
    var output = "docs/performance.md"

    @Option(
        name: .long,
        help: "Which benchmarks to run (repeatable): \(Self.sections.joined(separator: ", ")) (default: all)."
    )
    var only: [String] = []

    @Option(name: .long, help: .hidden)
    var serveCeiling: String?

    @Option(name: .long, help: .hidden)
    var ceilingDatabase: String?

    @Option(name: .long, help: .hidden)
    var ceilingMode = "bare"

    static let sections = [
        "shell", "submit", "transfer", "drain", "run", "bandwidth", "scale", "idle", "sampler", "reaction",
        "coalescing",
    ]

    func validate() throws {
        for name in only where !Self.sections.contains(name) {
            throw ValidationError(
                "unknown benchmark '\(name)' for --only; choose from \(Self.sections.joined(separator: ", "))"
            )
        }
    }

    func run() throws {
        if let socket = serveCeiling {
            // The child process `CeilingBenchmark` starts.
            try CeilingServer.serve(
                socket: socket,
                database: ceilingDatabase ?? socket + ".sqlite",
                mode: try CeilingServer.Mode(rawValue: ceilingMode)
                    ?? {
                        throw ValidationError(
                            "unknown --ceiling-mode '\(ceilingMode)'; choose bare, inline, checked, path-checked or lean-checked"
                        )
                    }()
            )
        }
        let interruption = try Interruption()
        defer { interruption.finish() }
        let started = Date()
        for section in Self.sections where only.isEmpty || only.contains(section) {
            let sectionStart = Date()
            progress("== \(section) ==")
            let table: String
            switch section {
            case "shell": table = try ShellBenchmark.run(quick: quick, progress: progress)
            case "submit": table = try submitBenchmark()
            case "transfer": table = try transferBenchmark()
            case "bandwidth": table = try BandwidthBenchmark.run(quick: quick, progress: progress)
            case "scale": table = try ScaleBenchmark.run(quick: quick, progress: progress)
            case "idle": table = try IdleBenchmark.run(quick: quick, progress: progress)
            case "sampler": table = try SamplerBenchmark.run(quick: quick, progress: progress)
            case "reaction": table = try ReactionBenchmark.run(quick: quick, progress: progress)
            case "drain": table = try DrainBenchmark.run(quick: quick, progress: progress)
            case "run": table = try RunQueueBenchmark.run(quick: quick, progress: progress)
            default: table = CoalescingBenchmark.run(quick: quick, progress: progress)
            }
            print("\n" + table)
            try record(table, section: section)
            progress("\(section) took \(Int(Date().timeIntervalSince(sectionStart))) s")
        }
        progress("all done in \(Int(Date().timeIntervalSince(started))) s")
    }

    private func transferBenchmark() throws -> String {
        let size = quick ? 256 << 20 : 1 << 30
        let runs = 4  // even: Lull and curl each go first in half of them
        let result = try TransferBenchmark.run(size: size, runs: runs) { progress($0) }
        let median = BenchReport.median
        func rate(_ seconds: Double) -> String { String(format: "%.0f MiB/s", Double(size) / 1_048_576 / seconds) }
        func spread(_ values: [Double]) -> String {
            let rates = values.map { Double(size) / 1_048_576 / $0 }
            return String(format: "%.0f–%.0f", rates.min() ?? 0, rates.max() ?? 0)
        }
        let fetchRatio = median(result.curlFetch) / median(result.lullFetch)
        let uploadRatio = median(result.curlUpload) / median(result.lullUpload)
        let fetchGrowth = result.peakFetchRSS - result.idleRSS
        let uploadGrowth = result.peakUploadRSS - result.idleRSS
        let table = """
            | measurement (\(size >> 20) MiB, nginx on loopback, median of \(runs)) | Lull | curl | Lull / curl | target | verdict |
            |---|---|---|---|---|---|
            | fetch throughput | \(rate(median(result.lullFetch))) (\(spread(result.lullFetch))) | \(rate(median(result.curlFetch))) (\(spread(result.curlFetch))) | \(String(format: "%.2f", fetchRatio)) | ≥ 0.90 | \(verdict(fetchRatio >= 0.9)) |
            | upload throughput | \(rate(median(result.lullUpload))) (\(spread(result.lullUpload))) | \(rate(median(result.curlUpload))) (\(spread(result.curlUpload))) | \(String(format: "%.2f", uploadRatio)) | ≥ 0.90 | \(verdict(uploadRatio >= 0.9)) |
            | lulld peak RSS growth during fetch (idle \(mib(result.idleRSS))) | +\(mib(fetchGrowth)) | — | — | ≤ +32 MiB | \(verdict(fetchGrowth <= 32 << 20)) |
            | lulld peak RSS growth during upload | +\(mib(uploadGrowth)) | — | — | ≤ +32 MiB | \(verdict(uploadGrowth <= 32 << 20)) |

            Lull's time runs from `lullctl submit` to the `succeeded` event (it includes the submission,
            SHA-256 hashing, fsync and the rename); curl's is the whole `curl -o FILE` / `curl -T FILE` run.
            \(BenchReport.machine(quick: quick, peers: ["nginx", "curl"]))
            """
        return table
    }

    private func submitBenchmark() throws -> String {
        let scale = quick ? 1 : 4
        let config = "[limits]\nmax_concurrent = 0\n"
        let daemon = try DaemonProcess(config: config)
        defer { daemon.remove() }
        progress("starting lulld from \(DaemonProcess.binary("lulld"))")
        ProcessMemory.evictFromPageCache(DaemonProcess.binary("lulld"))
        let startedAt = DispatchTime.now()
        try daemon.start()
        let readyMs = Double(DispatchTime.now().uptimeNanoseconds - startedAt.uptimeNanoseconds) / 1e6
        Thread.sleep(forTimeInterval: 2)
        let idleRSS = rss(of: daemon.pid)
        progress("ready in \(String(format: "%.0f", readyMs)) ms, idle RSS \(mib(idleRSS))")

        progress("warm-up: 500 submissions")
        _ = try SubmitBenchmark.throughput(
            socket: daemon.socketPath,
            daemon: daemon.pid,
            clients: 4,
            requests: 500,
            firstID: 0
        )
        progress("1 client, \(1500 * scale) sequential submissions")
        let sequential = try SubmitBenchmark.throughput(
            socket: daemon.socketPath,
            daemon: daemon.pid,
            clients: 1,
            requests: 1500 * scale,
            firstID: 10_000
        )
        progress("16 clients, \(8000 * scale) submissions")
        let concurrent = try SubmitBenchmark.throughput(
            socket: daemon.socketPath,
            daemon: daemon.pid,
            clients: 16,
            requests: 8000 * scale,
            firstID: 100_000
        )
        let seconds = quick ? 3 : 10
        progress("steady 1,000/s for \(seconds) s")
        let latency = try SubmitBenchmark.latency(
            socket: daemon.socketPath,
            rate: 1000,
            seconds: seconds,
            connections: 8,
            firstID: 200_000
        )
        let batches = quick ? 20 : 100
        progress("batch route: \(batches) requests of 100 jobs")
        let batch = try SubmitBenchmark.batchThroughput(
            socket: daemon.socketPath,
            daemon: daemon.pid,
            batches: batches,
            size: 100,
            firstID: 1_000_000
        )
        let loadedRSS = rss(of: daemon.pid)
        let queued = 500 + sequential.requests + concurrent.requests + latency.requests + batch.requests

        // The machine's own limit, on the filesystem holding the daemon's state.
        let rows = quick ? 500 : 2000
        progress("SQLite limit: \(rows) rows, one per commit, then 100 per commit")
        let single = try SQLiteLimit.measure(in: daemon.directory.path, rows: rows, rowsPerCommit: 1)
        let hundred = try SQLiteLimit.measure(in: daemon.directory.path, rows: rows * 20, rowsPerCommit: 100)
        let ceiling = try CeilingBenchmark.run(
            in: daemon.directory.path,
            sequential: 1500 * scale,
            concurrent: 8000 * scale,
            progress: progress
        )
        let rounds = quick ? 2 : 5
        let paired = try CeilingBenchmark.paired(
            in: daemon.directory.path,
            lulld: (daemon.socketPath, daemon.pid),
            rounds: rounds,
            sequential: 500 * scale,
            concurrent: 2000 * scale,
            firstID: 2_000_000,
            progress: progress
        )
        let lean = try CeilingBenchmark.pairedLean(
            in: daemon.directory.path,
            rounds: rounds,
            sequential: 500 * scale,
            concurrent: 2000 * scale,
            progress: progress
        )
        func pairedRatio(_ ratios: [Double]) -> String {
            String(
                format: "%.2f× (%.2f–%.2f)",
                BenchReport.median(ratios),
                ratios.min() ?? .nan,
                ratios.max() ?? .nan
            )
        }
        let counted = try InstructionCount.measure(config: config, submissions: quick ? 300 : 1000, progress: progress)
        let instructions =
            counted.map { "\(format($0.perSubmission / 1000))k (\($0.submissions) jobs)" }
            ?? "not counted (no valgrind)"
        func rate(_ value: Double) -> String { "\(format(value))/s" }
        func ratio(_ value: Double) -> String { String(format: "%.2f×", value / single.perSecond) }
        func share(_ run: SubmitBenchmark.Throughput, _ ceiling: SubmitBenchmark.Throughput) -> String {
            String(format: "%.2f×", run.perSecond / ceiling.perSecond)
        }
        func cpu(_ run: SubmitBenchmark.Throughput) -> String {
            String(format: "%.0f µs", run.cpuMicrosecondsPerRequest)
        }

        let table = """
            | measurement | result | × SQLite one fsync per row | target | verdict |
            |---|---|---|---|---|
            | durable submissions/s, 1 client sequential (\(sequential.requests) jobs) | \(rate(sequential.perSecond)) | \(ratio(sequential.perSecond)) | ≥ 3,000/s | \(verdict(sequential.perSecond >= 3000)) |
            | durable submissions/s, 16 concurrent clients (\(concurrent.requests) jobs) | \(rate(concurrent.perSecond)) | \(ratio(concurrent.perSecond)) | ≥ 20,000/s | \(verdict(concurrent.perSecond >= 20000)) |
            | 16-client rate vs one fsync per job | \(ratio(concurrent.perSecond)) | — | ≥ 3× | \(verdict(concurrent.perSecond >= 3 * single.perSecond)) |
            | durable submissions/s, batch route, 100 jobs per request, 1 client (\(batch.requests) jobs) | \(rate(batch.perSecond)) | \(ratio(batch.perSecond)) | — | — |
            | lulld CPU time per submission: 1 client / 16 clients / batch route | \(cpu(sequential)) / \(cpu(concurrent)) / \(cpu(batch)) | — | — | — |
            | lulld instructions per submission, 1 client sequential (callgrind; user space only) | \(instructions) | — | — | — |
            | ceiling: bare server, writer thread, 1 client sequential (\(ceiling.sequential.requests) jobs) | \(rate(ceiling.sequential.perSecond)) | \(ratio(ceiling.sequential.perSecond)) | — | — |
            | ceiling: bare server, writer thread, 16 clients (\(ceiling.concurrent.requests) jobs) | \(rate(ceiling.concurrent.perSecond)) | \(ratio(ceiling.concurrent.perSecond)) | — | — |
            | ceiling: bare server, commit on the event loop, 1 client sequential (\(ceiling.inlineSequential.requests) jobs) | \(rate(ceiling.inlineSequential.perSecond)) | \(ratio(ceiling.inlineSequential.perSecond)) | — | — |
            | ceiling CPU time per submission: writer thread 1 client / 16 clients; inline 1 client | \(cpu(ceiling.sequential)) / \(cpu(ceiling.concurrent)); \(cpu(ceiling.inlineSequential)) | — | — | — |
            | ceiling with lulld's checks (size limit, decode, validation, stored spec, path check, quota), 1 client sequential | \(rate(ceiling.checkedSequential.perSecond)) | \(ratio(ceiling.checkedSequential.perSecond)) | — | — |
            | ceiling with lulld's checks, 16 clients | \(rate(ceiling.checkedConcurrent.perSecond)) | \(ratio(ceiling.checkedConcurrent.perSecond)) | — | — |
            | ceiling with lulld's checks, CPU time per submission: 1 client / 16 clients | \(cpu(ceiling.checkedSequential)) / \(cpu(ceiling.checkedConcurrent)) | — | — | — |
            | ceiling with lulld's checks / bare ceiling: 1 client / 16 clients | \(share(ceiling.checkedSequential, ceiling.sequential)) / \(share(ceiling.checkedConcurrent, ceiling.concurrent)) | — | — | — |
            | ceiling with only the destination checked off the loop, 1 client sequential | \(rate(ceiling.pathCheckedSequential.perSecond)) | \(ratio(ceiling.pathCheckedSequential.perSecond)) | — | — |
            | ceiling with only the destination checked off the loop, 16 clients | \(rate(ceiling.pathCheckedConcurrent.perSecond)) | \(ratio(ceiling.pathCheckedConcurrent.perSecond)) | — | — |
            | ceiling with only the destination checked off the loop, CPU time per submission: 1 client / 16 clients | \(cpu(ceiling.pathCheckedSequential)) / \(cpu(ceiling.pathCheckedConcurrent)) | — | — | — |
            | ceiling with only the destination checked off the loop / bare ceiling: 1 client / 16 clients | \(share(ceiling.pathCheckedSequential, ceiling.sequential)) / \(share(ceiling.pathCheckedConcurrent, ceiling.concurrent)) | — | — | — |
            | ceiling with lulld's checks after the bare server's decoding (validation, path check, quota), 1 client sequential | \(rate(ceiling.leanCheckedSequential.perSecond)) | \(ratio(ceiling.leanCheckedSequential.perSecond)) | — | — |
            | ceiling with lulld's checks after the bare server's decoding, 16 clients | \(rate(ceiling.leanCheckedConcurrent.perSecond)) | \(ratio(ceiling.leanCheckedConcurrent.perSecond)) | — | — |
            | ceiling with lulld's checks after the bare server's decoding, CPU time per submission: 1 client / 16 clients | \(cpu(ceiling.leanCheckedSequential)) / \(cpu(ceiling.leanCheckedConcurrent)) | — | — | — |
            | ceiling with lulld's checks after the bare server's decoding / bare ceiling: 1 client / 16 clients | \(share(ceiling.leanCheckedSequential, ceiling.sequential)) / \(share(ceiling.leanCheckedConcurrent, ceiling.concurrent)) | — | — | — |
            | ceiling with lulld's checks after the bare server's decoding / bare ceiling, in turn (median and range of \(rounds) rounds): 1 client / 16 clients | \(pairedRatio(lean.sequential)) / \(pairedRatio(lean.concurrent)) | — | — | — |
            | lulld / ceiling (writer thread), 1 client sequential: the runs above | \(share(sequential, ceiling.sequential)) | — | — | — |
            | lulld / ceiling (writer thread), 16 clients: the runs above | \(share(concurrent, ceiling.concurrent)) | — | — | — |
            | lulld / ceiling (writer thread), 1 client sequential, in turn (\(500 * scale) jobs each; median and range of \(rounds) rounds) | \(pairedRatio(paired.sequential)) | — | ≥ 0.85× | \(verdict(BenchReport.median(paired.sequential) >= 0.85)) |
            | lulld / ceiling (writer thread), 16 clients, in turn (\(2000 * scale) jobs each; median and range of \(rounds) rounds) | \(pairedRatio(paired.concurrent)) | — | ≥ 0.85× | \(verdict(BenchReport.median(paired.concurrent) >= 0.85)) |
            | lulld / ceiling with lulld's checks: 1 client / 16 clients | \(share(sequential, ceiling.checkedSequential)) / \(share(concurrent, ceiling.checkedConcurrent)) | — | — | — |
            | peer: SQLite inserts, WAL + synchronous=FULL, 1 row per commit (\(single.requests) rows) | \(rate(single.perSecond)) | 1.00× | — | — |
            | peer: SQLite inserts, WAL + synchronous=FULL, 100 rows per commit (\(hundred.requests) rows) | \(rate(hundred.perSecond)) | \(ratio(hundred.perSecond)) | — | — |
            | submit latency at a steady 1,000/s (\(latency.requests) jobs): p50 | \(String(format: "%.2f", latency.p50)) ms | — | — | — |
            | submit latency at a steady 1,000/s: p99 | \(String(format: "%.2f", latency.p99)) ms | — | ≤ 5 ms | \(verdict(latency.p99 <= 5)) |
            | submit latency at a steady 1,000/s: max | \(String(format: "%.2f", latency.max)) ms | — | — | — |
            | idle RSS after start (empty store) | \(mib(idleRSS)) | — | ≤ 20 MiB | \(verdict(Double(idleRSS) <= 20 * 1_048_576)) |
            | RSS after the runs (\(queued) jobs queued) | \(mib(loadedRSS)) | — | — | — |
            | start to READY=1 (empty store) | \(String(format: "%.0f", readyMs)) ms | — | — | — |

            The SQLite peer rows are measured in the same run by lull-bench itself (GRDB, a one-table
            database of rows the size of a job, in the daemon's state directory's filesystem): they are
            what this disk allows for durable commits, so the ratio column says how far group commit
            carries Lull past one fsync per job. The ceiling rows are `CeilingServer` (in lull-bench):
            a server that only parses the request by hand, commits the job and its event with raw
            SQLite statements into lulld's schema, and answers, under the same clients. What it cannot
            reach, lulld cannot reach on this machine. The rows *with lulld's checks* are the same
            server doing, with lulld's own code, what lulld's features ask of each submission: the
            request size limit, the body decoded as a `JobSubmission`, the spec made and validated,
            the `spec` column written as lulld writes it, the destination checked on NIO's thread
            pool, the owner's quota. The rows *with only the destination checked off the loop* are
            the bare server plus the one check no event loop may make itself (its calls can block on
            a slow disk or a network mount): lulld's own check of the destination, on NIO's thread
            pool. The rows *with lulld's checks after the bare server's decoding* make lulld's size
            limit, validation, destination check and quota after the bare server's own scan of the
            body, and store the body as it does; their ratio to the bare server is also measured in
            turn, as lulld's is. The gap between them
            and the bare server is what those checks cost; the gap between lulld and them is lulld's
            architecture (async channels and tasks, GRDB, the scheduler, events, metrics). The two
            target rows are measured in turn: one bare ceiling server and lulld kept running, the
            same clients on each in the same minute, whichever went first going second in the next
            round, so drift between blocks measured minutes apart does not enter the verdict.
            \(BenchReport.machine(quick: quick))
            """
        return table
    }

    private func record(_ table: String, section: String) throws {
        guard var text = try? String(contentsOfFile: output, encoding: .utf8) else { return }
        let begin = "<!-- bench:\(section):begin -->"
        let end = "<!-- bench:\(section):end -->"
        guard let start = text.range(of: begin), let stop = text.range(of: end) else {
            progress("\(output) has no \(begin) marker; not updated")
            return
        }
        text.replaceSubrange(start.upperBound..<stop.lowerBound, with: "\n" + table + "\n")
        try text.write(toFile: output, atomically: true, encoding: .utf8)
        progress("updated \(output)")
    }

    private func progress(_ message: String) {
        FileHandle.standardError.write(Data("lull-bench: \(message)\n".utf8))
    }

    private func rss(of pid: Int32) -> Int64 { ProcessMemory.rss(of: pid) }
    private func mib(_ bytes: Int64) -> String { BenchReport.mib(bytes) }
    private func format(_ value: Double) -> String { BenchReport.grouped(value) }
    private func verdict(_ met: Bool) -> String { BenchReport.verdict(met) }

    static func machine() -> String {
        let cpu =
            (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = ProcessInfo.processInfo.physicalMemory / 1_073_741_824
        let formatter = ISO8601DateFormatter()
        return
            "\(cpu), \(cores) cores, \(memory) GiB, Linux \(ProcessInfo.processInfo.operatingSystemVersionString), \(formatter.string(from: Date()))"
    }
}
