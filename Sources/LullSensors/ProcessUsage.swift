import Foundation

/// This process's resident memory and CPU time, from /proc/self, and — when the process runs
/// in its own cgroup (lulld.service) — the cgroup's memory and CPU.
public struct ProcessUsage: Sendable, Equatable, Codable {
    public var rssBytes: Int64
    public var cpuSeconds: Double
    /// `memory.current` of the process's cgroup v2 (includes page cache it caused).
    public var cgroupMemoryBytes: Int64?
    /// `usage_usec` of the cgroup's `cpu.stat`, in seconds.
    public var cgroupCPUSeconds: Double?

    public init(rssBytes: Int64, cpuSeconds: Double, cgroupMemoryBytes: Int64? = nil, cgroupCPUSeconds: Double? = nil) {
        self.rssBytes = rssBytes
        self.cpuSeconds = cpuSeconds
        self.cgroupMemoryBytes = cgroupMemoryBytes
        self.cgroupCPUSeconds = cgroupCPUSeconds
    }

    public static func current() -> ProcessUsage {
        read(procRoot: "/proc", cgroupRoot: "/sys/fs/cgroup")
    }

    /// - Parameters:
    ///   - procRoot: where `self/statm`, `self/stat` and `self/cgroup` live (a fixture in tests).
    ///   - cgroupRoot: the cgroup v2 mount; nil skips the cgroup numbers.
    public static func read(procRoot: String, cgroupRoot: String? = nil, process: String = "self") -> ProcessUsage {
        let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let dir = SysFiles.join(procRoot, process)
        var rss: Int64 = 0
        if let statm = SysFiles.read(SysFiles.join(dir, "statm")) {
            let fields = statm.split(separator: " ")
            if fields.count > 1, let pages = Int64(fields[1]) { rss = pages * pageSize }
        }
        var usage = ProcessUsage(rssBytes: rss, cpuSeconds: cpuSeconds(procRoot: procRoot, process: process))
        if let cgroupRoot, let group = cgroupPath(SysFiles.read(SysFiles.join(dir, "cgroup"))) {
            let groupDir = SysFiles.join(cgroupRoot, String(group.drop { $0 == "/" }))
            usage.cgroupMemoryBytes = SysFiles.readInt(SysFiles.join(groupDir, "memory.current"))
            if let stat = SysFiles.read(SysFiles.join(groupDir, "cpu.stat")) {
                for line in stat.split(whereSeparator: \.isNewline) where line.hasPrefix("usage_usec ") {
                    usage.cgroupCPUSeconds = Double(line.dropFirst("usage_usec ".count)).map { $0 / 1_000_000 }
                }
            }
        }
        return usage
    }

    /// CPU time (user + system) of the process, from one read of `stat`: what per-job
    /// accounting needs at each attempt's start and end, without the rest of `read`. This
    /// process's own comes from `CLOCK_PROCESS_CPUTIME_ID`, one call instead of opening, reading
    /// and parsing a file (a queue of small fetches reads it twice a job).
    public static func cpuSeconds(procRoot: String = "/proc", process: String = "self") -> Double {
        if procRoot == "/proc", process == "self" {
            var now = timespec()
            if clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 {
                return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
            }
        }
        guard let stat = SysFiles.read(SysFiles.join(SysFiles.join(procRoot, process), "stat")),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The cgroup v2 path from `/proc/self/cgroup` (`0::/system.slice/lulld.service`).
    static func cgroupPath(_ text: String?) -> String? {
        guard let text else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("0::") {
            return String(line.dropFirst(3))
        }
        return nil
    }
}
