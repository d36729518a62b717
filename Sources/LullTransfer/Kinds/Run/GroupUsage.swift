import Foundation
import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// Reads what a process group uses from /proc: the CPU time and resident memory of every live
/// process in it (a process that left the group with `setsid` is not counted). A scan of /proc
/// per reading, so it is read when someone asks (a job's view), not on a timer.
enum GroupUsage {
    struct Reading {
        var cpuSeconds: Double
        var memoryBytes: Int64
    }

    static func read(group: Int32, proc: String = "/proc") -> Reading? {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        var reading = Reading(cpuSeconds: 0, memoryBytes: 0)
        var found = false
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: proc)) ?? [] {
            guard entry.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let stat = try? String(contentsOfFile: "\(proc)/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the command name: state(1) ppid(2) pgrp(3) ... utime(14) stime(15) ... rss(24).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 21, Int32(fields[2]) == group else { continue }
            found = true
            reading.cpuSeconds += (Double(fields[11]) ?? 0) / ticks + (Double(fields[12]) ?? 0) / ticks
            reading.memoryBytes += (Int64(fields[21]) ?? 0) * page
        }
        return found ? reading : nil
    }
}
