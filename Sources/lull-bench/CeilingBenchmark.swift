import Foundation
import LullTestSupport

/// Runs `CeilingServer` in a process of its own (`lull-bench --serve-ceiling`), so its CPU time
/// is its own, and loads it with the same clients as lulld: what this machine allows at most.
enum CeilingBenchmark {
    struct Result {
        var sequential: SubmitBenchmark.Throughput
        var concurrent: SubmitBenchmark.Throughput
        var inlineSequential: SubmitBenchmark.Throughput
    }

    static func run(
        in directory: String,
        sequential: Int,
        concurrent: Int,
        progress: (String) -> Void
    ) throws -> Result {
        progress("ceiling server (writer thread): \(sequential) sequential, \(concurrent) from 16 clients")
        let (sequentialRun, concurrentRun) = try withServer(in: directory, inline: false) { socket, pid in
            _ = try SubmitBenchmark.throughput(socket: socket, daemon: pid, clients: 4, requests: 500, firstID: 0)
            return (
                try SubmitBenchmark.throughput(
                    socket: socket,
                    daemon: pid,
                    clients: 1,
                    requests: sequential,
                    firstID: 10_000
                ),
                try SubmitBenchmark.throughput(
                    socket: socket,
                    daemon: pid,
                    clients: 16,
                    requests: concurrent,
                    firstID: 100_000
                )
            )
        }
        progress("ceiling server (commit on the event loop): \(sequential) sequential")
        let inlineRun = try withServer(in: directory, inline: true) { socket, pid in
            _ = try SubmitBenchmark.throughput(socket: socket, daemon: pid, clients: 1, requests: 500, firstID: 0)
            return try SubmitBenchmark.throughput(
                socket: socket,
                daemon: pid,
                clients: 1,
                requests: sequential,
                firstID: 10_000
            )
        }
        return Result(sequential: sequentialRun, concurrent: concurrentRun, inlineSequential: inlineRun)
    }

    private static func withServer<T>(
        in directory: String,
        inline: Bool,
        _ body: (String, Int32) throws -> T
    ) throws -> T {
        let name = inline ? "ceiling-inline" : "ceiling"
        let socket = directory + "/\(name).sock"
        let database = directory + "/\(name).sqlite"
        let arguments =
            ["--serve-ceiling", socket, "--ceiling-database", database] + (inline ? ["--ceiling-inline"] : [])
        let server = try ServerLaunch.start(
            "the ceiling server",
            executable: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            arguments: arguments,
            timeout: .seconds(10),
            readiness: "listen on \(socket)"
        ) { (try? RawHTTPConnection(socketPath: socket)) != nil }
        defer {
            ServerLaunch.kill(server)
            for path in [socket, database, database + "-wal", database + "-shm"] { unlink(path) }
        }
        return try body(socket, server.processIdentifier)
    }
}
