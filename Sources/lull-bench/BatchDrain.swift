import Foundation
import LullTestSupport

/// Hands lulld a list of jobs through `POST /v1/jobs:batch`, 100 a request, and waits for the
/// last to succeed on the event stream: how the queue benchmarks time a drain.
enum BatchDrain {
    /// Seconds from the first request to the last `succeeded`, and lulld's CPU seconds over them.
    static func run(_ jobs: [String], daemon: DaemonProcess) throws -> (seconds: Double, cpu: Double) {
        let connection = try RawHTTPConnection(socketPath: daemon.socketPath)
        let stream = try RawHTTPConnection(socketPath: daemon.socketPath)
        // Followed from the log's newest event, as the API tells a client to: replaying the whole
        // log would make each drain pay for the ones before it.
        guard let newest = try connection.json("/v1/status", "last_event_seq") as? Int else {
            throw BenchError("GET /v1/status has no last_event_seq")
        }
        let cpuBefore = ProcessCPU.seconds(of: daemon.pid)
        let seconds = try timed {
            var ids = Set<Int>()
            for first in stride(from: 0, to: jobs.count, by: 100) {
                let batch = jobs[first..<min(first + 100, jobs.count)].joined(separator: ",")
                let (status, body) = try connection.exchange(
                    RawHTTPConnection.request("POST", "/v1/jobs:batch", body: #"{"jobs":[\#(batch)]}"#)
                )
                guard status == 201 || status == 200,
                    let answer = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                    let views = answer["jobs"] as? [[String: Any]]
                else {
                    throw BenchError("batch answered \(status): \(String(decoding: body.prefix(300), as: UTF8.self))")
                }
                for view in views { if let id = view["id"] as? Int { ids.insert(id) } }
            }
            // Only these jobs count.
            var failed = false
            try stream.follow(RawHTTPConnection.request("GET", "/v1/events?after=\(newest)"), timeout: 600) { line in
                guard line.hasPrefix("data:"),
                    let event = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(5).utf8)) as? [String: Any],
                    let id = event["job_id"] as? Int, ids.contains(id)
                else { return false }
                switch event["type"] as? String {
                case "succeeded": ids.remove(id)
                case "failed": failed = true
                default: break
                }
                return ids.isEmpty || failed
            }
            guard !failed else { throw BenchError("a job of the drain failed") }
        }
        return (seconds, ProcessCPU.seconds(of: daemon.pid) - cpuBefore)
    }
}
