import Foundation
import LullTestSupport

/// From a power change on D-Bus to the stop of a running transfer that requires AC: the
/// `stopped` event on the daemon's event stream, and the moment the loopback server sees the
/// transfer's connection close.
enum StopReactionBenchmark {
    struct Result {
        var toSocketClosed: [Double] = []
        var toStoppedEvent: [Double] = []
    }

    static func run(
        repetitions: Int,
        daemon: DaemonProcess,
        bus: MockSystemBus,
        connection: RawHTTPConnection,
        progress: (String) -> Void
    ) throws -> Result {
        let server = try TestHTTPServer.startBlocking()
        defer { server.stopBlocking() }
        var result = Result()
        for repetition in 1...repetitions {
            let path = "/slow-\(repetition)"
            // About 1.3 MiB/s for 16 MiB: far more left than `finish_within` when the change comes.
            server.route(
                path,
                .init(
                    body: TestHTTPServer.bytes(count: 16 << 20),
                    faults: [.drip(bytes: 64 << 10, every: .milliseconds(50))]
                )
            )
            progress("stop reaction \(repetition)/\(repetitions): on AC, a transfer that requires AC runs")
            try ReactionBenchmark.setOnBattery(false, bus: bus)
            try connection.wait("the daemon to see AC power") {
                try connection.json("/v1/status", "world", "power", "on_battery") as? Bool == false
            }
            let body =
                #"{"kind":"fetch","url":"\#(server.url(path))","destination":"/tmp/lull-bench-stop-\#(repetition)","class":"utility","requires_ac":true}"#
            let (status, answer) = try connection.exchange(RawHTTPConnection.request("POST", "/v1/jobs", body: body))
            guard status == 201,
                let id = (try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any])?["id"] as? Int
            else { throw BenchError("submission answered \(status)") }
            try connection.wait("job \(id) to receive bytes") {
                (try connection.json("/v1/jobs/\(id)", "progress", "bytes_done") as? Int ?? 0) > 0
            }

            progress("stop reaction \(repetition)/\(repetitions): unplugging")
            let stream = try RawHTTPConnection(socketPath: daemon.socketPath)
            var subscribed = false
            try stream.follow(RawHTTPConnection.request("GET", "/v1/events?after=0"), timeout: 10) { line in
                if line.hasPrefix(": lull event stream") { subscribed = true }
                return subscribed
            }
            let signalled = try ReactionBenchmark.setOnBattery(true, bus: bus)
            try stream.follow([], timeout: 20) { line in
                guard line.hasPrefix("data:"),
                    let event = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(5).utf8)) as? [String: Any]
                else { return false }
                return event["job_id"] as? Int == id && event["type"] as? String == "stopped"
            }
            let seen = Date()
            try connection.wait("the server to see the transfer's connection close") {
                !server.connectionsClosed(path).isEmpty
            }
            result.toStoppedEvent.append(seen.timeIntervalSince(signalled) * 1000)
            result.toSocketClosed.append(server.connectionsClosed(path)[0].timeIntervalSince(signalled) * 1000)
            _ = try connection.exchange(RawHTTPConnection.request("DELETE", "/v1/jobs/\(id)"))
            try? FileManager.default.removeItem(atPath: "/tmp/lull-bench-stop-\(repetition)")
        }
        return result
    }
}
