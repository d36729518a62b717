import Foundation
import LullTestSupport

/// Submitting from a shell: `lullctl submit fetch` against Debian's task-spooler (`tsp`) and
/// `nq`, beside the floors a Swift client stands on (`lull-submit-floor`, and `lull-parsed-floor` with
/// swift-argument-parser), each command timed from
/// spawn to exit. They run interleaved in rounds so a busy moment of the machine hits all alike.
enum ShellBenchmark {
    static func run(quick: Bool, progress: (String) -> Void) throws -> String {
        let count = quick ? 100 : 500
        let rounds = 10
        for tool in ["/usr/bin/tsp", "/usr/bin/nq"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw BenchError("\(tool) is missing: install task-spooler and nq (make bench does)")
        }
        let daemon = try DaemonProcess(config: "[limits]\nmax_concurrent = 0\n")
        defer { daemon.remove() }
        try daemon.start()
        let peers = try PeerQueues()
        defer { peers.stop() }
        let lullctl = DaemonProcess.binary("lullctl")
        let floor = DaemonProcess.binary("lull-submit-floor")
        let parsedFloor = DaemonProcess.binary("lull-parsed-floor")
        for binary in [floor, parsedFloor] where !FileManager.default.isExecutableFile(atPath: binary) {
            throw BenchError("\(binary) is missing: build it (make bench-build does)")
        }
        let environment = peers.environment

        let commands: [(name: String, argv: (Int) -> [String])] = [
            (
                "lullctl submit fetch",
                { n in
                    [
                        lullctl, "submit", "fetch", "http://127.0.0.1:9/shell/\(n)", "-o", "/tmp/lull-bench-shell-\(n)",
                        "--socket", daemon.socketPath,
                    ]
                }
            ),
            ("tsp true", { _ in ["/usr/bin/tsp", "true"] }),
            ("nq true", { _ in ["/usr/bin/nq", "true"] }),
            (
                "lull-submit-floor",
                { n in [floor, "http://127.0.0.1:9/floor/\(n)", "/tmp/lull-bench-floor-\(n)", daemon.socketPath] }
            ),
            (
                "lull-parsed-floor submit fetch",
                { n in
                    [
                        parsedFloor, "submit", "fetch", "http://127.0.0.1:9/parsed/\(n)", "-o",
                        "/tmp/lull-bench-parsed-\(n)",
                        "--socket", daemon.socketPath,
                    ]
                }
            ),
            ("lullctl --version", { _ in [lullctl, "--version"] }),
        ]
        // Warm-up: page in each binary, start the tsp server.
        for command in commands { _ = try spawnAndWait(command.argv(-1), environment: environment) }
        var samples = Array(repeating: [Double](), count: commands.count)
        for round in 1...rounds {
            progress(
                "shell round \(round)/\(rounds): \(count / rounds) runs each of \(commands.map(\.name).joined(separator: ", "))"
            )
            for (index, command) in commands.enumerated() {
                for n in 0..<(count / rounds) {
                    var status: Int32 = 0
                    let seconds = try timed {
                        status = try spawnAndWait(command.argv(round * 10_000 + n), environment: environment)
                    }
                    guard status == 0 else { throw BenchError("\(command.name) exited with \(status)") }
                    samples[index].append(seconds * 1000)
                }
            }
        }
        let fastestPeer = min(BenchReport.median(samples[1]), BenchReport.median(samples[2]))
        var rows = ""
        for (index, command) in commands.enumerated() {
            let ratio = BenchReport.median(samples[index]) / fastestPeer
            rows +=
                "| `\(command.name)` | \(samples[index].count) | \(BenchReport.spread(samples[index], "%.2f ms")) | "
            rows += String(format: "%.2f", ratio)
            rows += index == 0 ? " | ≤ 3.00 | \(BenchReport.verdict(ratio <= 3)) |\n" : " | — | — |\n"
        }
        return """
            | command (per run, wall time) | runs | median (spread) | ratio to the faster peer | target | verdict |
            |---|---|---|---|---|---|
            \(rows)
            Method: each command is started with `posix_spawn` (output to /dev/null) and timed until
            it exits; the commands take turns in \(rounds) rounds of \(count / rounds) so that load on the
            machine hits them alike. Lull's daemon runs with `max_concurrent = 0` (jobs are stored
            durably and held); tsp and nq get a private `TS_SOCKET` / `NQDIR` and queue `true`. Lull's
            command answers only after the job is committed with `fsync`; tsp keeps its queue in
            memory and nq writes a file without syncing. `lull-submit-floor` is the floor under
            `lullctl submit fetch`: a Swift program built and linked as lullctl is that sends the same
            request and prints the same line, with no argument parser, Foundation or checks: the floor of
            a minimal Swift client here, which a target below its ratio would ask lullctl to beat.
            `lull-parsed-floor submit fetch` is that floor with its arguments parsed by
            swift-argument-parser, through a command tree of lullctl's shape and `submit fetch`'s
            options declared alike: the floor of any lullctl built on that parser.
            `lullctl --version` is the start of lullctl alone.
            \(BenchReport.machine(quick: quick, peers: ["task-spooler", "nq"]))
            """
    }
}

/// Private task-spooler and nq queues in a temporary directory; `stop` kills the tsp server.
final class PeerQueues {
    let directory: String
    var tsSocket: String { directory + "/ts.sock" }
    var nqDirectory: String { directory + "/nq" }

    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "lull-bench-peers-\(UUID().uuidString.prefix(6))"
            ).path
        try FileManager.default.createDirectory(atPath: directory + "/nq", withIntermediateDirectories: true)
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TS_SOCKET"] = tsSocket
        environment["NQDIR"] = nqDirectory
        // tsp writes each job's output to TMPDIR/ts-out.*, and `tsp -C` leaves the files: in
        // this directory they go with it.
        environment["TMPDIR"] = directory
        return environment
    }

    /// The tsp processes of this queue (found by their environment), lowest pid first: the
    /// server (forked by the first client) and a waiting client process per queued job.
    func tspProcesses() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8), comm.hasPrefix("tsp"),
                let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"),
                String(decoding: environ, as: UTF8.self).contains("TS_SOCKET=\(tsSocket)")
            else { return nil }
            return pid
        }.sorted()
    }

    func stop() {
        let environment = self.environment
        _ = try? spawnAndWait(["/usr/bin/tsp", "-k"], environment: environment)
        _ = try? spawnAndWait(["/usr/bin/tsp", "-K"], environment: environment)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
