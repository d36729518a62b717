import Foundation

/// The kernel's count of OOM kills (`oom_kill` in /proc/vmstat, Linux 4.13 and later). Under
/// cgroup v1 systemd cannot tell that the kernel killed a unit at its memory limit; a SIGKILL
/// while this count went up, in a unit that had a limit, is taken to be that.
enum KernelOOMCount {
    static func read(vmstat: String = "/proc/vmstat") -> Int64? {
        guard let text = try? String(contentsOfFile: vmstat, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("oom_kill ") {
            return Int64(line.dropFirst("oom_kill ".count))
        }
        return nil
    }
}
