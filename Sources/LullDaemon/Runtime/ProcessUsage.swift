import Foundation

/// This process's resident memory and CPU time, from /proc/self.
public struct ProcessUsage: Sendable {
    public var rssBytes: Int64
    public var cpuSeconds: Double

    public static func current() -> ProcessUsage {
        let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var rss: Int64 = 0
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = statm.split(separator: " ")
            if fields.count > 1, let pages = Int64(fields[1]) { rss = pages * pageSize }
        }
        var cpu = 0.0
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) {
                cpu = (user + system) / ticks
            }
        }
        return ProcessUsage(rssBytes: rss, cpuSeconds: cpu)
    }
}
