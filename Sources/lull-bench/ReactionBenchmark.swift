import Foundation
import LullTestSupport

/// From a power change on D-Bus (python-dbusmock's UPower on a private bus) to the `started`
/// event of the job that waited for AC, seen on the daemon's event stream.
enum ReactionBenchmark {
    static let upower = "org.freedesktop.UPower"
    static let displayDevice = "/org/freedesktop/UPower/devices/DisplayDevice"

    static func run(quick: Bool, progress: (String) -> Void) throws -> String {
        guard MockSystemBus.isAvailable else {
            throw BenchError("needs dbus-daemon and python3-dbusmock (make bench installs them)")
        }
        let repetitions = 5
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("upower", busName: upower, parameters: #"{"OnBattery": true}"#)
        for (name, value) in [
            ("Type", "dbus.UInt32(2)"), ("IsPresent", "True"), ("Percentage", "dbus.Double(50.0)"),
            ("State", "dbus.UInt32(2)"),
        ] {
            try bus.setProperty(upower, displayDevice, upower + ".Device", name, value)
        }
        let daemon = try DaemonProcess(config: "[sensors]\nbus = \"\(bus.address)\"\n")
        defer { daemon.remove() }
        try daemon.start()
        let connection = try RawHTTPConnection(socketPath: daemon.socketPath)

        var afterSignal: [Double] = []
        var withPython: [Double] = []
        for repetition in 1...repetitions {
            progress("reaction \(repetition)/\(repetitions): on battery, a job that requires AC waits")
            try setOnBattery(true, bus: bus)
            try connection.wait("the daemon to see battery power") {
                try connection.json("/v1/status", "world", "power", "on_battery") as? Bool == true
            }
            let (status, body) = try connection.exchange(
                RawHTTPConnection.request(
                    "POST",
                    "/v1/jobs",
                    body: RawHTTPConnection.submitBody(repetition, extra: #","requires_ac":true"#)
                )
            )
            guard status == 201,
                let id = (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["id"] as? Int
            else { throw BenchError("submission answered \(status)") }
            try connection.wait("job \(id) to wait for AC") {
                String(describing: try connection.json("/v1/jobs/\(id)", "waiting_for") ?? "").contains("on_battery")
            }

            progress("reaction \(repetition)/\(repetitions): plugging in")
            let stream = try RawHTTPConnection(socketPath: daemon.socketPath)
            var subscribed = false
            try stream.follow(RawHTTPConnection.request("GET", "/v1/events?after=0"), timeout: 10) { line in
                if line.hasPrefix(": lull event stream") { subscribed = true }
                return subscribed
            }
            let before = Date()
            let signalled = try setOnBattery(false, bus: bus)
            try stream.follow([], timeout: 20) { line in
                guard line.hasPrefix("data:"),
                    let event = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(5).utf8)) as? [String: Any]
                else { return false }
                return event["job_id"] as? Int == id && event["type"] as? String == "started"
            }
            let seen = Date()
            afterSignal.append(seen.timeIntervalSince(signalled) * 1000)
            withPython.append(seen.timeIntervalSince(before) * 1000)
        }
        let median = BenchReport.median(afterSignal)
        let stop = try StopReactionBenchmark.run(
            repetitions: repetitions,
            daemon: daemon,
            bus: bus,
            connection: connection,
            progress: progress
        )
        let stopMedian = BenchReport.median(stop.toSocketClosed)
        return """
            | measurement (median of \(repetitions)) | result | target | verdict |
            |---|---|---|---|
            | D-Bus `OnBattery=false` → held job's `started` event | \(BenchReport.spread(afterSignal, "%.1f ms")) | ≤ 250 ms | \(BenchReport.verdict(median <= 250)) |
            | the same including the python process that makes the change | \(BenchReport.spread(withPython, "%.1f ms")) | — | — |
            | D-Bus `OnBattery=true` → running transfer's socket closed at the server | \(BenchReport.spread(stop.toSocketClosed, "%.1f ms")) | ≤ 250 ms | \(BenchReport.verdict(stopMedian <= 250)) |
            | D-Bus `OnBattery=true` → its `stopped` event (resume point stored) | \(BenchReport.spread(stop.toStoppedEvent, "%.1f ms")) | — | — |

            Method: python-dbusmock's `upower` template runs on a private bus (`[sensors] bus`); for each
            repetition lull-bench sets `OnBattery=true`, waits until `/v1/status` shows it, submits a fetch job
            with `requires_ac` and waits until it is held with `on_battery`; then it subscribes to
            `GET /v1/events` (server-sent events) and runs a python call that sets `OnBattery=false`. The
            python process prints `time.time()` just before it makes the D-Bus call; the first row runs from
            that moment to the arrival of the job's `started` event at lull-bench, the second from before
            the python process was started (its start-up included). For the stop rows, a `utility` fetch
            with `requires_ac` runs against a loopback server sending 64 KiB every 50 ms; once it has
            received bytes, lull-bench sets `OnBattery=true` and times the server's seeing the
            connection close and the arrival of the job's `stopped` event.
            \(BenchReport.machine(quick: quick, peers: ["python3-dbusmock"]))
            """
    }

    /// Sets UPower's `OnBattery`; returns the moment (wall clock, from python) just before the D-Bus call.
    @discardableResult
    static func setOnBattery(_ onBattery: Bool, bus: MockSystemBus) throws -> Date {
        let result = try bus.python(
            """
            import time
            obj = bus.get_object('\(upower)', '/org/freedesktop/UPower')
            sys.stdout.write(repr(time.time()))
            sys.stdout.flush()
            obj.Set('\(upower)', 'OnBattery', \(onBattery ? "True" : "False"), dbus_interface='org.freedesktop.DBus.Properties')
            """
        )
        guard result.status == 0, let seconds = Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw BenchError("setting OnBattery failed: \(result.stderr)")
        }
        return Date(timeIntervalSince1970: seconds)
    }
}
