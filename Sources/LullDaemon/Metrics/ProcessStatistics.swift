import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own numbers that Prometheus client libraries export as `process_*` (the same
/// names and meanings, so dashboards made for any exporter work), read from /proc at scrape time.
struct ProcessStatistics: Sendable, Equatable {
    var cpuSeconds: Double
    var residentBytes: Int64
    var virtualBytes: Int64
    /// Seconds since the epoch.
    var startTime: Double
    var openFDs: Int
    var maxFDs: Int

    static func current() -> ProcessStatistics {
        var limit = rlimit()
        let maxFDs =
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : 0
        let openFDs = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        let stat = Stat(read("/proc/self/stat") ?? "")
        return ProcessStatistics(
            cpuSeconds: (stat?.cpuTicks ?? 0) / ticksPerSecond,
            residentBytes: (stat?.residentPages ?? 0) * pageSize,
            virtualBytes: stat?.virtualBytes ?? 0,
            startTime: startTime,
            openFDs: openFDs,
            maxFDs: maxFDs
        )
    }

    /// When this process started, in seconds since the epoch; read once, as it never changes.
    static let startTime: Double = {
        guard let boot = bootTime(read("/proc/stat") ?? ""), let stat = Stat(read("/proc/self/stat") ?? "") else {
            return 0
        }
        return boot + stat.startTicks / ticksPerSecond
    }()

    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    private static let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))

    /// The fields of one `/proc/PID/stat` line that the `process_*` metrics need.
    struct Stat: Equatable {
        var cpuTicks: Double
        var startTicks: Double
        var virtualBytes: Int64
        var residentPages: Int64

        /// Nil when the line does not have the fields.
        init?(_ line: String) {
            // The command name in parentheses may hold spaces and parentheses: fields count from the last ")".
            guard let close = line.lastIndex(of: ")") else { return nil }
            let fields = line[line.index(after: close)...].split(separator: " ")
            // fields[0] is field 3 (state): utime is 14, stime 15, starttime 22, vsize 23, rss 24.
            guard fields.count > 21, let user = Double(fields[11]), let system = Double(fields[12]),
                let start = Double(fields[19]), let virtual = Int64(fields[20]), let resident = Int64(fields[21])
            else { return nil }
            (cpuTicks, startTicks, virtualBytes, residentPages) = (user + system, start, virtual, resident)
        }
    }

    /// `btime` of `/proc/stat`: when the machine booted, in seconds since the epoch.
    static func bootTime(_ stat: String) -> Double? {
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// procfs reports a size of 0: read to the end rather than by the size.
    private static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
    }
}
