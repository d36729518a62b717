import Foundation
import LullTestSupport

/// Runs `CeilingServer` in a process of its own (`lull-bench --serve-ceiling`), so its CPU time
/// is its own, and loads it with the same clients as lulld: what this machine allows at most.
enum CeilingBenchmark {
    struct Result {
        var sequential: SubmitBenchmark.Throughput
        var concurrent: SubmitBenchmark.Throughput
        var inlineSequential: SubmitBenchmark.Throughput
        var checkedSequential: SubmitBenchmark.Throughput
        var checkedConcurrent: SubmitBenchmark.Throughput
        var pathCheckedSequential: SubmitBenchmark.Throughput
        var pathCheckedConcurrent: SubmitBenchmark.Throughput
        var leanCheckedSequential: SubmitBenchmark.Throughput
        var leanCheckedConcurrent: SubmitBenchmark.Throughput
    }

    static func run(
        in directory: String,
        sequential: Int,
        concurrent: Int,
        progress: (String) -> Void
    ) throws -> Result {
        progress("ceiling server (writer thread): \(sequential) sequential, \(concurrent) from 16 clients")
        let (sequentialRun, concurrentRun) = try both(in: directory, mode: .bare, sequential, concurrent)
        progress("ceiling server with lulld's checks: \(sequential) sequential, \(concurrent) from 16 clients")
        let (checkedSequential, checkedConcurrent) = try both(in: directory, mode: .checked, sequential, concurrent)
        progress(
            "ceiling server with the destination checked off the loop: \(sequential) sequential, \(concurrent) from 16 clients"
        )
        let (pathCheckedSequential, pathCheckedConcurrent) = try both(
            in: directory,
            mode: .pathChecked,
            sequential,
            concurrent
        )
        progress(
            "ceiling server with lulld's checks after its own decoding: \(sequential) sequential, \(concurrent) from 16 clients"
        )
        let (leanCheckedSequential, leanCheckedConcurrent) = try both(
            in: directory,
            mode: .leanChecked,
            sequential,
            concurrent
        )
        progress("ceiling server (commit on the event loop): \(sequential) sequential")
        let inlineRun = try withServer(in: directory, mode: .inline) { socket, pid in
            _ = try SubmitBenchmark.throughput(socket: socket, daemon: pid, clients: 1, requests: 500, firstID: 0)
            return try SubmitBenchmark.throughput(
                socket: socket,
                daemon: pid,
                clients: 1,
                requests: sequential,
                firstID: 10_000
            )
        }
        return Result(
            sequential: sequentialRun,
            concurrent: concurrentRun,
            inlineSequential: inlineRun,
            checkedSequential: checkedSequential,
            checkedConcurrent: checkedConcurrent,
            pathCheckedSequential: pathCheckedSequential,
            pathCheckedConcurrent: pathCheckedConcurrent,
            leanCheckedSequential: leanCheckedSequential,
            leanCheckedConcurrent: leanCheckedConcurrent
        )
    }

    /// lulld's rate over the ceiling's (writer thread), each round measured in turn against one
    /// ceiling server and lulld kept running, whichever went first in the last round going second:
    /// the ratios the targets are judged by, free of drift between blocks measured minutes apart.
    struct Paired {
        var sequential: [Double] = []
        var concurrent: [Double] = []
    }

    static func paired(
        in directory: String,
        lulld: (socket: String, pid: Int32),
        rounds: Int,
        sequential: Int,
        concurrent: Int,
        firstID: Int,
        progress: (String) -> Void
    ) throws -> Paired {
        try withServer(in: directory, mode: .bare) { socket, pid in
            try warmUp(socket, pid)
            return try inTurn(
                lulld,
                against: (socket, pid),
                rounds: rounds,
                sequential: sequential,
                concurrent: concurrent,
                firstID: firstID
            ) { round in
                progress("paired round \(round) of \(rounds): lulld and the ceiling in turn, 1 client, then 16")
            }
        }
    }

    /// The lean-checked server's rate over the bare one's, measured in turn as lulld's is: what
    /// lulld's checks cost any Lull, free of the drift between blocks measured minutes apart.
    static func pairedLean(
        in directory: String,
        rounds: Int,
        sequential: Int,
        concurrent: Int,
        progress: (String) -> Void
    ) throws -> Paired {
        try withServer(in: directory, mode: .bare) { bareSocket, barePID in
            try withServer(in: directory, mode: .leanChecked) { leanSocket, leanPID in
                try warmUp(bareSocket, barePID)
                try warmUp(leanSocket, leanPID)
                return try inTurn(
                    (leanSocket, leanPID),
                    against: (bareSocket, barePID),
                    rounds: rounds,
                    sequential: sequential,
                    concurrent: concurrent,
                    firstID: 10_000
                ) { round in
                    progress(
                        "lean round \(round) of \(rounds): lulld's checks and the bare ceiling in turn, 1 client, then 16"
                    )
                }
            }
        }
    }

    /// `measured`'s rate over `reference`'s, one client and then 16, each round in turn,
    /// whichever went first in one round going second in the next.
    private static func inTurn(
        _ measured: (socket: String, pid: Int32),
        against reference: (socket: String, pid: Int32),
        rounds: Int,
        sequential: Int,
        concurrent: Int,
        firstID: Int,
        announce: (Int) -> Void
    ) throws -> Paired {
        var paired = Paired()
        var nextID = firstID
        func rate(_ target: (socket: String, pid: Int32), clients: Int, requests: Int) throws -> Double {
            defer { nextID += requests }
            return try SubmitBenchmark.throughput(
                socket: target.socket,
                daemon: target.pid,
                clients: clients,
                requests: requests,
                firstID: nextID
            ).perSecond
        }
        for round in 1...rounds {
            announce(round)
            for (clients, requests) in [(1, sequential), (16, concurrent)] {
                let measuredFirst = round % 2 == 1
                let first = try rate(measuredFirst ? measured : reference, clients: clients, requests: requests)
                let second = try rate(measuredFirst ? reference : measured, clients: clients, requests: requests)
                let ratio = measuredFirst ? first / second : second / first
                if clients == 1 { paired.sequential.append(ratio) } else { paired.concurrent.append(ratio) }
            }
        }
        return paired
    }

    /// 500 submissions from 4 clients before a server is measured.
    private static func warmUp(_ socket: String, _ pid: Int32) throws {
        _ = try SubmitBenchmark.throughput(socket: socket, daemon: pid, clients: 4, requests: 500, firstID: 0)
    }

    /// One client sequentially, then 16 at once, after a warm-up.
    private static func both(
        in directory: String,
        mode: CeilingServer.Mode,
        _ sequential: Int,
        _ concurrent: Int
    ) throws -> (SubmitBenchmark.Throughput, SubmitBenchmark.Throughput) {
        try withServer(in: directory, mode: mode) { socket, pid in
            try warmUp(socket, pid)
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
    }

    private static func withServer<T>(
        in directory: String,
        mode: CeilingServer.Mode,
        _ body: (String, Int32) throws -> T
    ) throws -> T {
        let name = "ceiling-\(mode.rawValue)"
        let socket = directory + "/\(name).sock"
        let database = directory + "/\(name).sqlite"
        let arguments = ["--serve-ceiling", socket, "--ceiling-database", database, "--ceiling-mode", mode.rawValue]
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
