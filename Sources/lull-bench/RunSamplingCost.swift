import Foundation
import LullTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What sampling running commands costs lulld: its CPU over the same window with 16 `sleep` run
/// jobs running, once sampled every `fast` seconds and once every 60 s (no sample in the
/// window), in the same run. The difference over the passes made is one pass's cost: the /proc
/// scan for all groups, the readings' `progress` events committed, their SSE wake-ups.
enum RunSamplingCost {
    static let jobs = 16
    static let fast = 0.25

    struct Measurement {
        /// lulld CPU seconds per sampling pass over all the jobs, one per window.
        var perPass: [Double]
        /// Processes on the machine while it was measured (what one pass scans).
        var processes: Int
    }

    static func measure(window: Double, runs: Int) throws -> Measurement {
        var perPass: [Double] = []
        var processes = 0
        for _ in 0..<runs {
            let (sampled, scanned) = try lulldCPU(interval: fast, window: window)
            let (quiet, _) = try lulldCPU(interval: 60, window: window)
            perPass.append(max(0, sampled - quiet) / (window / fast))
            processes = scanned
        }
        return Measurement(perPass: perPass, processes: processes)
    }

    /// lulld's CPU seconds over `window` while `jobs` `sleep` commands run, and the processes seen.
    private static func lulldCPU(interval: Double, window: Double) throws -> (Double, Int) {
        let daemon = try DaemonProcess(
            config: """
                [limits]
                max_concurrent = \(jobs)
                max_per_host = \(jobs)

                [classes.default]
                max_concurrent = \(jobs)

                [transfers]
                progress_interval = \(interval)
                """
        )
        defer { daemon.remove() }
        try daemon.start()
        let connection = try RawHTTPConnection(socketPath: daemon.socketPath)
        let job = #"{"kind":"run","argv":["/bin/sleep","600"]}"#
        let batch = Array(repeating: job, count: jobs).joined(separator: ",")
        let (status, _) = try connection.exchange(
            RawHTTPConnection.request("POST", "/v1/jobs:batch", body: #"{"jobs":[\#(batch)]}"#)
        )
        guard status == 201 || status == 200 else { throw BenchError("batch answered \(status)") }
        try connection.wait("\(jobs) run jobs running") {
            try connection.json("/v1/status", "running") as? Int == jobs
        }
        // Past the first samples and the start-up's own work.
        usleep(1_500_000)
        let before = ProcessCPU.seconds(of: daemon.pid)
        usleep(UInt32(window * 1_000_000))
        let used = ProcessCPU.seconds(of: daemon.pid) - before
        let processes =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?
            .filter { $0.allSatisfy(\.isNumber) }.count ?? 0
        return (used, processes)
    }
}
