import Foundation
import LullTestSupport

/// The sampler's own cost at one sample per second: lulld's CPU time over a window while a
/// client keeps the watch lease alive, minus the same window with nobody watching.
enum SamplerBenchmark {
    static func run(quick: Bool, progress: (String) -> Void) throws -> String {
        let window = quick ? 15.0 : 60.0
        let daemon = try DaemonProcess(realPressure: true)
        defer { daemon.remove() }
        try daemon.start()
        let connection = try RawHTTPConnection(socketPath: daemon.socketPath)
        Thread.sleep(forTimeInterval: 2)
        let idleRunning = try connection.metric("lull_sampler_running")

        progress("sampler: \(Int(window)) s with nobody watching")
        let idle = ThreadCounters.cpuNanoseconds(pid: daemon.pid)
        try ThreadCounters.watch([idle], seconds: window)
        let idleCPU = Double(idle.total) / 1e9

        progress("sampler: \(Int(window)) s with a watcher (GET /v1/samples every 10 s)")
        let watched = ThreadCounters.cpuNanoseconds(pid: daemon.pid)
        var reads = 0
        var watchedRunning: Double?
        try ThreadCounters.watch([watched], seconds: window) { elapsed in
            guard Double(reads) * 10 <= elapsed else { return }
            _ = try connection.json("/v1/samples")
            reads += 1
            if watchedRunning == nil { watchedRunning = try connection.metric("lull_sampler_running") }
        }
        let watchCPU = Double(watched.total) / 1e9
        let samplerShare = max(0, watchCPU - idleCPU) / window * 100
        func percent(_ cpu: Double) -> String { String(format: "%.3f%%", cpu / window * 100) }
        func flag(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "absent" }
        return """
            | measurement (\(Int(window)) s windows) | result | target | verdict |
            |---|---|---|---|
            | lulld CPU, nobody watching (peer: the same daemon without the sampler) | \(String(format: "%.1f ms", idleCPU * 1000)) (\(percent(idleCPU)) of a core) | — | — |
            | lulld CPU, watched (\(reads) reads of `GET /v1/samples`) | \(String(format: "%.1f ms", watchCPU * 1000)) (\(percent(watchCPU)) of a core) | — | — |
            | sampler cost at 1 sample/s (difference) | \(String(format: "%.3f%%", samplerShare)) of one core | ≤ 0.1% | \(BenchReport.verdict(samplerShare <= 0.1)) |
            | `lull_sampler_running` with nobody watching, no pressure-held jobs | \(flag(idleRunning)) | 0 | \(BenchReport.verdict(idleRunning == 0)) |
            | `lull_sampler_running` while watched | \(flag(watchedRunning)) | 1 | \(BenchReport.verdict(watchedRunning == 1)) |

            Method: a release lulld reading the machine's real `/proc` starts on an empty store; after 2 s
            its CPU time (`/proc/PID/task/*/schedstat` of every thread, ns resolution, read every 250 ms so
            threads that end in the window count too) is taken over a \(Int(window)) s window
            with nobody watching, then over a \(Int(window)) s window in which lull-bench reads `GET /v1/samples`
            every 10 s (the watch lease lasts 30 s, so the sampler runs at its busy interval of one sample per
            second throughout). The difference is the sampler's cost; it includes serving the \(reads) requests.\(quick ? " --quick uses 15 s windows." : "")
            \(BenchReport.machine(quick: quick))
            """
    }
}
