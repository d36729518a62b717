import Foundation
import LullTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Run jobs: a queue of `true` commands drained at the same concurrency by lulld, task-spooler
/// and `xargs -P`, and the start latency of one run job (submission to the process running).
enum RunQueueBenchmark {
    static let concurrency = 8

    static func run(quick: Bool, progress: (String) -> Void) throws -> String {
        let count = quick ? 200 : 1000
        let runs = quick ? 1 : 3
        let hasTsp = FileManager.default.isExecutableFile(atPath: "/usr/bin/tsp")
        let daemon = try DaemonProcess(
            config: """
                [limits]
                max_concurrent = \(concurrency)

                [classes.default]
                max_concurrent = \(concurrency)
                """
        )
        defer { daemon.remove() }
        // The commands' logs and task-spooler's outputs are files: the last section's deletions
        // would slow them.
        QuietFileSystem.wait(progress: progress)
        try daemon.start()
        let peers = try PeerQueues()
        defer { peers.stop() }
        if hasTsp { _ = try spawnAndWait(["/usr/bin/tsp", "-S", "\(concurrency)"], environment: peers.environment) }

        var lull: [Double] = []
        var cpu: [Double] = []
        var tsp: [Double] = []
        var xargs: [Double] = []
        let job = #"{"kind":"run","argv":["/bin/true"]}"#
        for run in 1...runs {
            var contenders: [(String, () throws -> Void)] = [
                (
                    "lulld",
                    {
                        let (seconds, used) = try BatchDrain.run(Array(repeating: job, count: count), daemon: daemon)
                        lull.append(seconds)
                        cpu.append(used / Double(count))
                    }
                ),
                (
                    "xargs -P",
                    {
                        xargs.append(
                            try timed {
                                let status = try spawnAndWait(
                                    ["/bin/sh", "-c", "seq \(count) | xargs -P \(concurrency) -n 1 /bin/true"],
                                    environment: [:]
                                )
                                guard status == 0 else { throw BenchError("xargs exited \(status)") }
                            }
                        )
                    }
                ),
            ]
            if hasTsp { contenders.append(("tsp", { tsp.append(try drainWithTsp(count, peers)) })) }
            for offset in 0..<contenders.count {
                let (name, drain) = contenders[(offset + run - 1) % contenders.count]
                progress("\(count) × true, run \(run)/\(runs): \(name)")
                try drain()
            }
        }
        progress("start latency: 10 single run jobs")
        let latency = try (1...10).map { _ in try startLatency(daemon) }
        progress(
            "sampling: \(RunSamplingCost.jobs) running sleep commands, sampled every \(RunSamplingCost.fast) s and every 60 s"
        )
        let sampling = try RunSamplingCost.measure(window: quick ? 4 : 10, runs: runs)
        let perJob = sampling.perPass.map { $0 / Double(RunSamplingCost.jobs) * 1e6 }

        let fastest = [tsp, xargs].filter { !$0.isEmpty }.map(BenchReport.median).min() ?? .nan
        let ratio = BenchReport.median(lull) / fastest
        func seconds(_ values: [Double]) -> String {
            values.isEmpty ? "not installed" : BenchReport.spread(values, "%.2f s")
        }
        return """
            | measurement (median of \(runs)) | lulld | task-spooler | xargs -P | lulld / faster peer | target | verdict |
            |---|---|---|---|---|---|---|
            | \(count) run jobs of `true`, \(concurrency) at once, submission to the last end | \(seconds(lull)) | \(seconds(tsp)) | \(seconds(xargs)) | \(String(format: "%.2f×", ratio)) | ≤ 2× | \(BenchReport.verdict(ratio <= 2)) |
            | lulld CPU per run job | \(String(format: "%.2f ms", BenchReport.median(cpu) * 1000)) | — | — | — | — | — |
            | start latency of one run job: submission to the process running (median of 10) | \(BenchReport.spread(latency.map { $0 * 1000 }, "%.1f ms")) | — | — | — | — | — |
            | lulld CPU per sampling pass, per running run job (\(RunSamplingCost.jobs) running, \(sampling.processes) processes on the machine) | \(BenchReport.spread(perJob, "%.0f µs")) | — | — | — | — | — |

            Method: lulld (`[limits] max_concurrent` and the default class's at \(concurrency)) gets the
            jobs through `POST /v1/jobs:batch`, 100 a request, `{"kind":"run","argv":["/bin/true"]}`
            each; its time runs to the last `succeeded` on the event stream, each start and end
            committed with fsync. task-spooler (`tsp -S \(concurrency)`, a private `TS_SOCKET`) gets one
            `tsp true` per job and its time runs until `tsp -w` on the last returns and none is left
            running; `xargs` runs `seq \(count) | xargs -P \(concurrency) -n 1 /bin/true`. They take turns
            going first, lulld in the first run, after a `sync` and a minute without deletions. The start latency runs from just before `POST /v1/jobs` of a job that writes
            to a FIFO (`sh -c 'echo x > FIFO'`) to the moment lull-bench can read from it.
            Sampling: \(RunSamplingCost.jobs) `sleep 600` run jobs run in a lulld whose `progress_interval` is
            \(RunSamplingCost.fast) s and in one whose is 60 s; lulld's CPU over the same \(quick ? 4 : 10) s in each (after
            1.5 s to settle), the difference over the passes the first made, over the jobs. A pass is one
            scan of /proc for every group and a `progress` event per job committed.
            \(BenchReport.machine(quick: quick, peers: ["task-spooler"]))
            """
    }

    private static func drainWithTsp(_ count: Int, _ peers: PeerQueues) throws -> Double {
        let environment = peers.environment
        let seconds = try timed {
            for _ in 0..<count {
                guard try spawnAndWait(["/usr/bin/tsp", "true"], environment: environment) == 0 else {
                    throw BenchError("tsp refused a job")
                }
            }
            _ = try spawnAndWait(["/usr/bin/tsp", "-w"], environment: environment)
            for _ in 0..<1000 {
                let list = try CommandRunner.run("/usr/bin/tsp", ["-l"], environment: environment)
                if !list.stdout.contains("running") && !list.stdout.contains("queued") { return }
                usleep(1000)
            }
            throw BenchError("tsp did not finish its queue")
        }
        _ = try spawnAndWait(["/usr/bin/tsp", "-C"], environment: environment)
        return seconds
    }

    /// Seconds from just before the submission to the job's command writing to a FIFO.
    private static func startLatency(_ daemon: DaemonProcess) throws -> Double {
        let fifo = daemon.directory.appendingPathComponent("started-\(UUID().uuidString.prefix(6))").path
        guard mkfifo(fifo, 0o666) == 0 else { throw BenchError("mkfifo \(fifo) failed") }
        defer { unlink(fifo) }
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        guard reader >= 0 else { throw BenchError("cannot open \(fifo)") }
        defer { close(reader) }
        let connection = try RawHTTPConnection(socketPath: daemon.socketPath)
        let body = #"{"kind":"run","argv":["/bin/sh","-c","echo x > \#(fifo)"]}"#
        let start = DispatchTime.now().uptimeNanoseconds
        let (status, _) = try connection.exchange(RawHTTPConnection.request("POST", "/v1/jobs", body: body))
        guard status == 201 else { throw BenchError("submission answered \(status)") }
        var poller = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 10_000) == 1 else { throw BenchError("the run job did not start within 10 s") }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
