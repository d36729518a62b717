import Foundation
import LullTestSupport

/// Resident memory of another process, and its peak since the last reset.
enum ProcessMemory {
    static func rss(of pid: Int32) -> Int64 { field("VmRSS", pid) }
    static func peak(of pid: Int32) -> Int64 { field("VmHWM", pid) }

    /// Drops a program's file from the page cache, so the next start reads it from disk as after
    /// a boot. Most of an idle daemon's RSS is its binary's pages, and how many a fault maps
    /// depends on how they came into the cache: a binary just written by `cp` (large folios)
    /// shows more than the same binary read back from disk (docs/performance.md, idle memory).
    static func evictFromPageCache(_ path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        fsync(fd)
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
    }

    /// Writing 5 to clear_refs resets the peak (VmHWM) to the current RSS.
    static func resetPeak(of pid: Int32) {
        try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
    }

    private static func field(_ name: String, _ pid: Int32) -> Int64 {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return (Int64(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0) * 1024
        }
        return 0
    }
}

/// A process's CPU time, all threads (including ones that have ended), user plus system.
enum ProcessCPU {
    static func seconds(of pid: Int32) -> Double {
        // utime and stime are stat(5)'s fields 14 and 15; the list starts at field 3.
        guard let fields = ProcessTable.statFields(of: pid), fields.count > 12, let user = Double(fields[11]),
            let system = Double(fields[12])
        else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
