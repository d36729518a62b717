import Foundation
import LullTestSupport

/// How fast a queue drains: from the submission of a whole list of fetches (the batch route) to
/// the last `succeeded`, 16 transfers at once, side by side with `aria2c -j16 -i LIST` and
/// `curl --parallel --parallel-max 16` on the same files from nginx on loopback. lulld fsyncs
/// each file and renames it into place before its `succeeded`; the peers do not, so their time
/// runs until a `sync` after them returns: all three end when the files are durable.
enum DrainBenchmark {
    struct Queue {
        var name: String
        var count: Int
        var size: Int
    }

    struct Figures {
        var lull: [Double] = []
        var aria2: [Double] = []
        var curl: [Double] = []
        var lullCPUPerJob: [Double] = []
        var floor: [Double] = []
        var floorCPUPerJob: [Double] = []
    }

    static let concurrency = 16

    static func run(quick: Bool, progress: (String) -> Void) throws -> String {
        let queues = [
            Queue(name: "small", count: quick ? 300 : 1000, size: 16 << 10),
            Queue(name: "large", count: 16, size: quick ? 16 << 20 : 64 << 20),
        ]
        let runs = quick ? 1 : 3
        let aria2 = ["/usr/bin/aria2c", "/usr/local/bin/aria2c"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-bench-drain-\(UUID().uuidString.prefix(6))"
        )
        defer { try? FileManager.default.removeItem(at: work) }
        let www = work.appendingPathComponent("www")
        for queue in queues {
            let directory = www.appendingPathComponent(queue.name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            progress("writing \(queue.count) files of \(queue.size >> 10) KiB")
            let content = Data(TestHTTPServer.bytes(count: queue.size, seed: 11))
            for index in 0..<queue.count {
                try content.write(to: directory.appendingPathComponent("f\(index)"))
            }
        }
        try FileManager.default.createDirectory(
            at: work.appendingPathComponent("tmp"),
            withIntermediateDirectories: true
        )
        let nginx = try NginxProcess(root: work, www: www)
        defer { nginx.stop() }
        try nginx.start()

        let config = """
            [limits]
            max_concurrent = \(concurrency)
            max_per_host = \(concurrency)

            [classes.default]
            max_concurrent = \(concurrency)
            """
        let daemon = try DaemonProcess(config: config)
        defer { daemon.remove() }
        try daemon.start()

        var rows: [String] = []
        for queue in queues {
            var figures = Figures()
            let urls = (0..<queue.count).map { nginx.url("/\(queue.name)/f\($0)") }
            for run in 1...runs {
                // Each goes first in turn: the first of three back-to-back drains finds the disk idle.
                var contenders: [(String, () throws -> Void)] = [
                    (
                        "lulld",
                        {
                            let (seconds, cpu) = try drainWithLull(
                                urls,
                                into: output(work, "lull", run),
                                daemon: daemon
                            )
                            figures.lull.append(seconds)
                            figures.lullCPUPerJob.append(cpu / Double(queue.count))
                        }
                    ),
                    ("curl", { figures.curl.append(try drainWithCurl(urls, into: output(work, "curl", run))) }),
                ]
                if let aria2 {
                    contenders.append(
                        (
                            "aria2c",
                            { figures.aria2.append(try drainWithAria2(aria2, urls, into: output(work, "aria2", run))) }
                        )
                    )
                }
                // The floor is for the queue whose target is missed; it keeps a large file in memory.
                if queue.name == "small" {
                    contenders.append(
                        (
                            "floor",
                            {
                                let (seconds, cpu) = try DrainFloor.run(
                                    urls,
                                    into: output(work, "floor", run),
                                    concurrency: concurrency
                                )
                                figures.floor.append(seconds)
                                figures.floorCPUPerJob.append(cpu / Double(queue.count))
                            }
                        )
                    )
                }
                for offset in 0..<contenders.count {
                    let (name, drain) = contenders[(offset + run) % contenders.count]
                    progress("\(queue.name) queue, run \(run)/\(runs): \(name)")
                    try drain()
                }
                for name in ["lull", "curl", "aria2", "floor"] {
                    try? FileManager.default.removeItem(at: output(work, name, run))
                }
            }
            rows.append(row(queue, figures))
        }
        return """
            | queue (nginx on loopback, \(concurrency) at once, median of \(runs)) | lulld | aria2c -j\(concurrency) | curl --parallel-max \(concurrency) | lulld / faster peer | target | verdict | lulld CPU per job | floor | floor / faster peer | floor CPU per job |
            |---|---|---|---|---|---|---|---|---|---|---|
            \(rows.joined(separator: "\n"))

            Method: the files are written once and read from nginx (`sendfile on`) on loopback. lulld
            gets the whole list through `POST /v1/jobs:batch`, 100 jobs a request (`[limits] max_concurrent`,
            `max_per_host` and the default class's `max_concurrent` at \(concurrency)); its time runs
            from the first request to the last `succeeded` event on `GET /v1/events`, each file
            fsynced and renamed into place and each state change committed before that event. The
            peers get the same URLs as a list (`aria2c -i`, `curl -K` with `--parallel`), and their
            time runs until a `sync` after them returns. The contenders take turns going first.
            lulld's CPU per job is its user plus system time over the drain divided by the jobs.
            The floor is lulld's durable work alone, in one process with the same libraries
            (`DrainFloor`): each job's start and end committed to SQLite (WAL, `synchronous = FULL`,
            commits shared), the file fetched with AsyncHTTPClient, written, synced (one `syncfs`
            for the files finishing together), renamed and its directory fsynced (shared), \(concurrency)
            at once; no daemon, API, scheduler, event stream, identities, checks or hashing. Its
            ratio is where a Lull without any cost of its own would stand.
            \(BenchReport.machine(quick: quick, peers: ["nginx", "aria2", "curl"]))
            """
    }

    private static func output(_ work: URL, _ name: String, _ run: Int) -> URL {
        work.appendingPathComponent("out-\(name)-\(run)")
    }

    private static func row(_ queue: Queue, _ figures: Figures) -> String {
        let lull = BenchReport.median(figures.lull)
        let peers = [figures.aria2, figures.curl].filter { !$0.isEmpty }.map(BenchReport.median)
        let fastest = peers.min() ?? .nan
        let ratio = lull / fastest
        let size = queue.size >= 1 << 20 ? "\(queue.size >> 20) MiB" : "\(queue.size >> 10) KiB"
        func seconds(_ values: [Double]) -> String {
            values.isEmpty ? "not installed" : BenchReport.spread(values, "%.2f s")
        }
        return
            "| \(queue.count) × \(size) | \(seconds(figures.lull)) | \(seconds(figures.aria2)) | \(seconds(figures.curl)) | "
            + String(format: "%.2f×", ratio) + " | ≤ 1.0× | \(BenchReport.verdict(ratio <= 1.0)) | "
            + String(format: "%.2f ms", BenchReport.median(figures.lullCPUPerJob) * 1000) + " | "
            + (figures.floor.isEmpty
                ? "— | — | — |"
                : "\(seconds(figures.floor)) | "
                    + String(format: "%.2f×", BenchReport.median(figures.floor) / fastest) + " | "
                    + String(format: "%.2f ms", BenchReport.median(figures.floorCPUPerJob) * 1000) + " |")
    }

    /// Seconds from the first batch request to the last `succeeded`, and lulld's CPU seconds.
    private static func drainWithLull(
        _ urls: [String],
        into directory: URL,
        daemon: DaemonProcess
    ) throws -> (
        Double, Double
    ) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let jobs = urls.enumerated().map { index, url in
            #"{"kind":"fetch","url":"\#(url)","destination":"\#(directory.path)/f\#(index)"}"#
        }
        return try BatchDrain.run(jobs, daemon: daemon)
    }

    private static func drainWithCurl(_ urls: [String], into directory: URL) throws -> Double {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let list = directory.appendingPathExtension("curl")
        let lines = urls.enumerated().map { "url = \"\($1)\"\noutput = \"\(directory.path)/f\($0)\"" }
        try lines.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        return try timed {
            let status = try spawnAndWait(
                ["/usr/bin/curl", "-s", "--fail", "--parallel", "--parallel-max", "\(concurrency)", "-K", list.path],
                environment: [:]
            )
            guard status == 0 else { throw BenchError("curl exited \(status)") }
            sync()
        }
    }

    private static func drainWithAria2(_ aria2: String, _ urls: [String], into directory: URL) throws -> Double {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let list = directory.appendingPathExtension("aria2")
        let lines = urls.enumerated().map { "\($1)\n  out=f\($0)" }
        try lines.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        return try timed {
            let status = try spawnAndWait(
                [
                    aria2, "-q", "-j\(concurrency)", "-i", list.path, "-d", directory.path, "--allow-overwrite=true",
                    "--auto-file-renaming=false", "--file-allocation=none",
                ],
                environment: [:]
            )
            guard status == 0 else { throw BenchError("aria2c exited \(status)") }
            sync()
        }
    }
}
