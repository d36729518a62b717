#if canImport(Glibc)
import Glibc
#endif

/// What a stop of a command reaches: its cgroup where it has one (every process it started,
/// wherever they went), else its process group.
struct StopTarget {
    let leader: Int32
    let cgroup: JobCgroup?

    func signal(_ number: Int32) {
        if let cgroup {
            // Thawed first: a frozen cgroup's processes cannot act on a signal.
            if number == SIGCONT { _ = cgroup.freeze(false) }
            cgroup.signal(number)
        } else {
            kill(-leader, number)
        }
    }

    func killAll() {
        if let cgroup { cgroup.killAll() } else { kill(-leader, SIGKILL) }
    }
}

extension ProcessSupervisor.End {
    /// Takes in what the kernel counted in the command's cgroup, which saw every process of
    /// it, once they are all gone; then removes the cgroup.
    mutating func count(in cgroup: JobCgroup) {
        cgroup.killAll()
        _ = cgroup.awaitEmpty(seconds: 2)
        oomKilled = RunExit.signal(status) == Int(SIGKILL) && cgroup.oomKills > 0
        if let usage = cgroup.usage() {
            cpuSeconds = max(cpuSeconds, usage.cpuSeconds ?? 0)
            memoryPeakBytes = max(memoryPeakBytes, usage.memoryPeakBytes ?? 0)
            if let read = usage.ioReadBytes { ioReadBytes = read }
            if let written = usage.ioWriteBytes { ioWriteBytes = written }
        }
        cgroup.remove()
    }
}
