import Foundation
import LullTestSupport

/// Lull's fetch and upload against nginx on loopback, side by side with curl in the same run,
/// plus lulld's peak RSS during them.
enum TransferBenchmark {
    struct Result {
        var lullFetch: [Double] = []
        var curlFetch: [Double] = []
        var lullUpload: [Double] = []
        var curlUpload: [Double] = []
        var idleRSS: Int64 = 0
        var peakFetchRSS: Int64 = 0
        var peakUploadRSS: Int64 = 0
        var bytes: Int = 0
    }

    static func run(size: Int, runs: Int, progress: (String) -> Void) throws -> Result {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-bench-transfer-\(UUID().uuidString.prefix(6))"
        )
        defer { try? FileManager.default.removeItem(at: work) }
        let www = work.appendingPathComponent("www")
        try FileManager.default.createDirectory(
            at: www.appendingPathComponent("upload"),
            withIntermediateDirectories: true
        )
        try FileManager.default.createDirectory(
            at: work.appendingPathComponent("tmp"),
            withIntermediateDirectories: true
        )
        let payload = www.appendingPathComponent("payload.bin").path
        progress("writing a \(size >> 20) MiB payload")
        try Data(TestHTTPServer.bytes(count: size, seed: 5)).write(to: URL(fileURLWithPath: payload))

        let nginx = try NginxFileServer(root: work, www: www)
        defer { nginx.stop() }
        try nginx.start()

        let daemon = try DaemonProcess(config: "[transfers]\nprogress_interval = 1\n")
        defer { daemon.remove() }
        try daemon.start()
        Thread.sleep(forTimeInterval: 1)
        var result = Result(bytes: size)
        result.idleRSS = ProcessMemory.rss(of: daemon.pid)
        let lullctl = DaemonProcess.binary("lullctl")
        let downloads = work.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)

        for run in 1...runs {
            // The second of two back-to-back transfers runs slower, whoever makes it (a gigabyte
            // just went through nginx and the disk), so Lull and curl take turns going first.
            let lullFirst = run % 2 == 0
            func pair(_ curl: () throws -> Void, _ lull: () throws -> Void) rethrows {
                if lullFirst {
                    try lull()
                    try curl()
                } else {
                    try curl()
                    try lull()
                }
            }
            try pair(
                {
                    progress("fetch run \(run)/\(runs): curl")
                    settle()
                    let curlTarget = downloads.appendingPathComponent("curl-\(run).bin").path
                    result.curlFetch.append(
                        try timed {
                            try CommandRunner.run(
                                "/usr/bin/curl",
                                ["-sS", "--fail", "-o", curlTarget, nginx.url("/payload.bin")]
                            ).requireSuccess("curl")
                        }
                    )
                    try? FileManager.default.removeItem(atPath: curlTarget)
                },
                {
                    progress("fetch run \(run)/\(runs): lull")
                    settle()
                    ProcessMemory.resetPeak(of: daemon.pid)
                    let lullTarget = downloads.appendingPathComponent("lull-\(run).bin").path
                    result.lullFetch.append(
                        try timed {
                            try runJob(
                                lullctl,
                                ["submit", "fetch", nginx.url("/payload.bin"), "-o", lullTarget],
                                socket: daemon.socketPath
                            )
                        }
                    )
                    result.peakFetchRSS = max(result.peakFetchRSS, ProcessMemory.peak(of: daemon.pid))
                    try? FileManager.default.removeItem(atPath: lullTarget)
                }
            )
            try pair(
                {
                    progress("upload run \(run)/\(runs): curl -T")
                    settle()
                    result.curlUpload.append(
                        try timed {
                            try CommandRunner.run(
                                "/usr/bin/curl",
                                ["-sS", "--fail", "-T", payload, nginx.url("/upload/curl-\(run).bin")]
                            ).requireSuccess("curl -T")
                        }
                    )
                },
                {
                    progress("upload run \(run)/\(runs): lull")
                    settle()
                    ProcessMemory.resetPeak(of: daemon.pid)
                    result.lullUpload.append(
                        try timed {
                            try runJob(
                                lullctl,
                                ["submit", "upload", nginx.url("/upload/lull-\(run).bin"), "-f", payload],
                                socket: daemon.socketPath
                            )
                        }
                    )
                    result.peakUploadRSS = max(result.peakUploadRSS, ProcessMemory.peak(of: daemon.pid))
                }
            )
            for name in ["curl-\(run).bin", "lull-\(run).bin"] {
                try? FileManager.default.removeItem(at: www.appendingPathComponent("upload/\(name)"))
            }
        }
        return result
    }

    /// Writes every dirty page out before a timed transfer: each transfer (and the file nginx
    /// writes for an upload) leaves a gigabyte to flush, and without this the kernel makes
    /// whichever transfer comes next pay for it in writeback throttling.
    private static func settle() {
        sync()
    }

    /// Submits with `lullctl` and waits for the job's `succeeded` on the event stream; throws
    /// on `failed` or `retrying`, and after `timeout` seconds without either.
    static func runJob(_ lullctl: String, _ arguments: [String], socket: String, timeout: Double = 600) throws {
        let submitted = try CommandRunner.run(lullctl, arguments + ["--json", "--socket", socket])
        try submitted.requireSuccess("lullctl submit")
        guard let data = submitted.stdout.data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let id = object["id"] as? Int
        else { throw BenchError("unexpected submit output: \(submitted.stdout)") }
        let stream = try RawHTTPConnection(socketPath: socket)
        var failure: String?
        try stream.follow(RawHTTPConnection.request("GET", "/v1/events?after=0"), timeout: timeout) { line in
            guard line.hasPrefix("data:"),
                let event = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(5).utf8)) as? [String: Any],
                event["job_id"] as? Int == id, let type = event["type"] as? String
            else { return false }
            if type == "failed" || type == "retrying" { failure = "job \(id) \(type): \(event)" }
            return type == "succeeded" || failure != nil
        }
        if let failure { throw BenchError(failure) }
    }
}
