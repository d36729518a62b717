import Foundation
import LullTestSupport

/// What a bandwidth limit costs lulld: its CPU time per MiB fetched from and uploaded to nginx on
/// loopback, unlimited and under a job's own `max_bytes_per_second` (`--max-rate`).
enum BandwidthBenchmark {
    struct Row {
        var label: String
        var rate: Int?
        var size: Int
        var fetchCPU: [Double] = []
        var uploadCPU: [Double] = []
        var fetchSeconds: [Double] = []
        var uploadSeconds: [Double] = []
    }

    /// A limited transfer lasts about this long, whatever its rate.
    static let limitedSeconds = 8

    static func run(quick: Bool, progress: (String) -> Void) throws -> String {
        let runs = 3
        let rows = [
            Row(label: "unlimited", rate: nil, size: quick ? 256 << 20 : 1 << 30),
            Row(label: "--max-rate 64M", rate: 64 << 20, size: (64 << 20) * limitedSeconds),
            Row(label: "--max-rate 8M", rate: 8 << 20, size: (8 << 20) * limitedSeconds),
        ]
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-bench-bandwidth-\(UUID().uuidString.prefix(6))"
        )
        defer { try? FileManager.default.removeItem(at: work) }
        let www = work.appendingPathComponent("www")
        for directory in [www.appendingPathComponent("upload"), work.appendingPathComponent("tmp")] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        for size in Set(rows.map(\.size)) {
            progress("writing a \(size >> 20) MiB payload")
            try Data(TestHTTPServer.bytes(count: size, seed: 7)).write(to: www.appendingPathComponent("p-\(size).bin"))
        }
        let nginx = try NginxFileServer(root: work, www: www)
        defer { nginx.stop() }
        try nginx.start()
        let daemon = try DaemonProcess(config: "[transfers]\nprogress_interval = 1\n")
        defer { daemon.remove() }
        try daemon.start()
        Thread.sleep(forTimeInterval: 1)
        let lullctl = DaemonProcess.binary("lullctl")
        let downloads = work.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)

        /// lulld's CPU seconds and the wall seconds of one job.
        func measure(_ arguments: [String]) throws -> (cpu: Double, seconds: Double) {
            sync()
            let cpu = ProcessCPU.seconds(of: daemon.pid)
            let seconds = try timed { try TransferBenchmark.runJob(lullctl, arguments, socket: daemon.socketPath) }
            return (ProcessCPU.seconds(of: daemon.pid) - cpu, seconds)
        }

        var measured: [Row] = []
        for var row in rows {
            let rate = row.rate.map { ["--max-rate", "\($0 >> 20)M"] } ?? []
            for run in 1...runs {
                progress("\(row.label), \(row.size >> 20) MiB, run \(run)/\(runs)")
                let target = downloads.appendingPathComponent("f.bin").path
                let fetch = try measure(["submit", "fetch", nginx.url("/p-\(row.size).bin"), "-o", target] + rate)
                try? FileManager.default.removeItem(atPath: target)
                let source = www.appendingPathComponent("p-\(row.size).bin").path
                let upload = try measure(["submit", "upload", nginx.url("/upload/u.bin"), "-f", source] + rate)
                try? FileManager.default.removeItem(at: www.appendingPathComponent("upload/u.bin"))
                let mib = Double(row.size) / 1_048_576
                row.fetchCPU.append(fetch.cpu / mib)
                row.uploadCPU.append(upload.cpu / mib)
                row.fetchSeconds.append(fetch.seconds)
                row.uploadSeconds.append(upload.seconds)
            }
            measured.append(row)
        }
        let median = BenchReport.median
        func cpu(_ values: [Double]) -> String { String(format: "%.2f ms", median(values) * 1000) }
        func speed(_ row: Row, _ seconds: [Double]) -> String {
            String(format: "%.1f MiB/s", Double(row.size) / 1_048_576 / median(seconds))
        }
        let lines = measured.map { row in
            "| \(row.label) | \(row.size >> 20) MiB | \(cpu(row.fetchCPU)) | \(speed(row, row.fetchSeconds)) | \(cpu(row.uploadCPU)) | \(speed(row, row.uploadSeconds)) |"
        }
        return """
            | job (nginx on loopback, median of \(runs)) | size | lulld CPU per MiB, fetch | fetch rate | lulld CPU per MiB, upload | upload rate |
            |---|---|---|---|---|---|
            \(lines.joined(separator: "\n"))

            CPU is lulld's user and system time (`/proc/PID/stat`) from `lullctl submit` until the
            `succeeded` event, over the MiB moved; the rate is over the same span, so it includes the
            submission, and for a fetch the fsync and rename.
            \(BenchReport.machine(quick: quick, peers: ["nginx"]))
            """
    }
}
