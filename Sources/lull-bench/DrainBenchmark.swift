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
        var writtenFloor: [Double] = []
        var writtenFloorCPUPerJob: [Double] = []
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
        // The small queue's copies are kept until its runs are done, so that its runs do not
        // slow each other's creates as the deletions before the section would.
        QuietFileSystem.wait(progress: progress)
        let nginx = try NginxFileServer(root: work, www: www)
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
        var floorRows: [String] = []
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
                    contenders.append(
                        (
                            "floor, slot until written",
                            {
                                let (seconds, cpu) = try DrainFloor.run(
                                    urls,
                                    into: output(work, "written-floor", run),
                                    concurrency: concurrency,
                                    slot: .untilWritten
                                )
                                figures.writtenFloor.append(seconds)
                                figures.writtenFloorCPUPerJob.append(cpu / Double(queue.count))
                            }
                        )
                    )
                }
                for offset in 0..<contenders.count {
                    let (name, drain) = contenders[(offset + run - 1) % contenders.count]
                    progress("\(queue.name) queue, run \(run)/\(runs): \(name)")
                    try drain()
                }
                if queue.size >= 1 << 20 { removeOutputs(work, run) }
            }
            if queue.size < 1 << 20 { for run in 1...runs { removeOutputs(work, run) } }
            rows.append(row(queue, figures))
            if !figures.floor.isEmpty { floorRows += Self.floorRows(queue, figures) }
        }
        return """
            | queue (nginx on loopback, \(concurrency) at once, median of \(runs)) | lulld | aria2c -j\(concurrency) | curl --parallel-max \(concurrency) | lulld / faster peer | target | verdict | lulld CPU per job |
            |---|---|---|---|---|---|---|---|
            \(rows.joined(separator: "\n"))

            | the floors, in the same runs | time | / faster peer | CPU per job |
            |---|---|---|---|
            \(floorRows.joined(separator: "\n"))

            Method: the files are written once and synced, and the drains begin a minute later (on ext4
            without a journal a new file skips the inodes deleted in the last 60 s, or up to 360 s
            while their inode-table block is dirty, at a cost each);
            they are read from nginx (`sendfile on`) on loopback, and the small files' copies are kept
            until all their runs are done. lulld
            gets the whole list through `POST /v1/jobs:batch`, 100 jobs a request (`[limits] max_concurrent`,
            `max_per_host` and the default class's `max_concurrent` at \(concurrency)); its time runs
            from the first request to the last `succeeded` event on `GET /v1/events` (followed from
            the status's `last_event_seq`, as a client that waits does), each file
            fsynced and renamed into place and each state change committed before that event. The
            peers get the same URLs as a list (`aria2c -i`, `curl -K` with `--parallel`), and their
            time runs until a `sync` after them returns. The order of the contenders rotates by one each run, lulld going first in the first.
            lulld's CPU per job is its user plus system time over the drain divided by the jobs.
            The floors are lulld's durable work alone, in one process with the same libraries
            (`DrainFloor`): each job's start and end committed to SQLite (WAL, `synchronous = FULL`,
            commits shared), the file fetched with AsyncHTTPClient, written, synced (one `syncfs`
            for the files finishing together), renamed and its directory fsynced (shared), \(concurrency)
            at once; no daemon, API, scheduler, event stream, identities, checks or hashing. In the
            first a job keeps its place among the \(concurrency) until its end is committed, as in
            lulld: its ratio is where a Lull without any cost of its own would stand. In the second
            the place is free once the file is written, and the sync, rename and commit follow
            outside it (each end still committed only once its file is durable), which lulld has
            no stage for.
            \(BenchReport.machine(quick: quick, peers: ["nginx", "aria2", "curl"]))
            """
    }

    private static func output(_ work: URL, _ name: String, _ run: Int) -> URL {
        work.appendingPathComponent("out-\(name)-\(run)")
    }

    private static func removeOutputs(_ work: URL, _ run: Int) {
        for name in ["lull", "curl", "aria2", "floor", "written-floor"] {
            try? FileManager.default.removeItem(at: output(work, name, run))
        }
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
            + String(format: "%.2f ms", BenchReport.median(figures.lullCPUPerJob) * 1000) + " |"
    }

    private static func floorRows(_ queue: Queue, _ figures: Figures) -> [String] {
        let fastest = [figures.aria2, figures.curl].filter { !$0.isEmpty }.map(BenchReport.median).min() ?? .nan
        let floors = [
            ("a job's place held until its end is committed (lulld's way)", figures.floor, figures.floorCPUPerJob),
            ("the place freed once the file is written", figures.writtenFloor, figures.writtenFloorCPUPerJob),
        ]
        return floors.map { name, times, cpu in
            "| \(queue.count) × \(queue.size >> 10) KiB, \(name) | \(BenchReport.spread(times, "%.2f s")) | "
                + String(format: "%.2f×", BenchReport.median(times) / fastest) + " | "
                + String(format: "%.2f ms", BenchReport.median(cpu) * 1000) + " |"
        }
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
