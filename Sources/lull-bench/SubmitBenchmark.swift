import Foundation

/// Durable submissions over the control socket: throughput with 1 and 16 clients, and latency
/// under a steady open-loop rate (measured from the scheduled send time, so queueing counts).
enum SubmitBenchmark {
    struct Throughput {
        var clients: Int
        var requests: Int
        var seconds: Double
        /// The daemon's CPU time (all threads, user and system) over the run.
        var daemonCPUSeconds: Double
        var perSecond: Double { Double(requests) / seconds }
        /// Daemon CPU time per submission, in microseconds: what the two cores pay for each job.
        var cpuMicrosecondsPerRequest: Double { daemonCPUSeconds / Double(requests) * 1e6 }
    }

    static func throughput(
        socket: String,
        daemon: Int32,
        clients: Int,
        requests: Int,
        firstID: Int
    ) throws -> Throughput {
        let perClient = requests / clients
        let errors = ErrorBox()
        let cpuBefore = ProcessCPU.seconds(of: daemon)
        let start = DispatchTime.now()
        runThreads(clients) { client in
            do {
                let connection = try RawHTTPConnection(socketPath: socket)
                for n in 0..<perClient {
                    let status = try connection.roundTrip(
                        RawHTTPConnection.submitRequest(firstID + client * perClient + n)
                    )
                    if status != 201 { throw BenchError("submission answered \(status)") }
                }
            } catch {
                errors.record(error)
            }
        }
        if let error = errors.first { throw error }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return Throughput(
            clients: clients,
            requests: perClient * clients,
            seconds: seconds,
            daemonCPUSeconds: ProcessCPU.seconds(of: daemon) - cpuBefore
        )
    }

    /// `batches` requests to `POST /v1/jobs:batch` of `size` jobs each, one after another on one connection.
    static func batchThroughput(
        socket: String,
        daemon: Int32,
        batches: Int,
        size: Int,
        firstID: Int
    ) throws -> Throughput {
        let connection = try RawHTTPConnection(socketPath: socket)
        let requests = (0..<batches).map { RawHTTPConnection.batchRequest(first: firstID + $0 * size, count: size) }
        let cpuBefore = ProcessCPU.seconds(of: daemon)
        let seconds = try timed {
            for request in requests {
                let status = try connection.roundTrip(request)
                if status != 201 { throw BenchError("batch submission answered \(status)") }
            }
        }
        return Throughput(
            clients: 1,
            requests: batches * size,
            seconds: seconds,
            daemonCPUSeconds: ProcessCPU.seconds(of: daemon) - cpuBefore
        )
    }

    struct Latency {
        var rate: Int
        var requests: Int
        var p50: Double
        var p99: Double
        var max: Double
    }

    /// Sends `rate` submissions per second for `seconds`, spread over `connections` senders.
    static func latency(socket: String, rate: Int, seconds: Int, connections: Int, firstID: Int) throws -> Latency {
        let total = rate * seconds
        let interval = 1.0 / Double(rate)
        let samples = SampleBox(count: total)
        let errors = ErrorBox()
        let start = DispatchTime.now().uptimeNanoseconds + 50_000_000
        runThreads(connections) { lane in
            do {
                let connection = try RawHTTPConnection(socketPath: socket)
                var index = lane
                while index < total {
                    let scheduled = start + UInt64(Double(index) * interval * 1e9)
                    let now = DispatchTime.now().uptimeNanoseconds
                    if scheduled > now { usleep(UInt32((scheduled - now) / 1000)) }
                    let status = try connection.roundTrip(RawHTTPConnection.submitRequest(firstID + index))
                    if status != 201 { throw BenchError("submission answered \(status)") }
                    samples.set(index, Double(DispatchTime.now().uptimeNanoseconds - scheduled) / 1e6)
                    index += connections
                }
            } catch {
                errors.record(error)
            }
        }
        if let error = errors.first { throw error }
        let sorted = samples.values.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        return Latency(rate: rate, requests: total, p50: percentile(0.5), p99: percentile(0.99), max: sorted.last ?? 0)
    }
}

/// Runs `body` on `count` dedicated threads at once and waits for all of them.
/// (`concurrentPerform` would cap the parallelism at the core count: 16 clients must be 16.)
func runThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}

final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []
    func record(_ error: any Error) { lock.withLock { errors.append(error) } }
    var first: (any Error)? { lock.withLock { errors.first } }
}

final class SampleBox: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Double]
    init(count: Int) { storage = Array(repeating: 0, count: count) }
    func set(_ index: Int, _ value: Double) { lock.withLock { storage[index] = value } }
    var values: [Double] { lock.withLock { storage } }
}
