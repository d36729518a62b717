import CLullSys
import LullCore
import LullKernelFiles

#if canImport(Glibc)
import Glibc
#endif

/// The cgroup (v2) of one run job's command on the process host, `…/jobs/job-ID` under the
/// subtree delegated to lulld (`DelegatedCgroups`). It holds every process the command starts,
/// including those that leave its process group (`setsid`, a double fork), so a stop reaches
/// them all (`cgroup.kill`), a pause freezes them all (`cgroup.freeze`) and the kernel counts
/// their CPU (`cpu.stat`), and, where the controllers are delegated, memory and storage I/O.
public struct JobCgroup: Sendable, Equatable {
    /// The directory in the cgroup file system.
    public let directory: String
    /// The path as `/proc/PID/cgroup` shows it (the `0::` line): what a job's result names.
    public let path: String

    public init(directory: String, path: String) {
        self.directory = directory
        self.path = path
    }

    /// Makes the cgroup, or takes over the one a crashed daemon left: whatever still runs in it
    /// is killed first, so a command never runs twice.
    func prepare() throws(JobFailure) {
        if mkdir(directory, 0o755) != 0, errno == EEXIST {
            // Made anew, so its counters and limits are this attempt's alone.
            killAll()
            _ = awaitEmpty(seconds: 5)
            remove()
            if mkdir(directory, 0o755) != 0 && errno == EEXIST {
                throw JobFailure(
                    code: "internal_error",
                    message: "what a crashed lulld left in \(directory) does not end; kill it, then retry the job",
                    retryable: true
                )
            }
        }
        guard access(directory, F_OK) == 0 else {
            throw JobFailure(
                code: "internal_error",
                message: "cannot make the command's cgroup \(directory): \(String(cString: strerror(errno)))",
                retryable: true
            )
        }
    }

    /// Writes the controls into the cgroup's files (`cpu.weight`, `memory.max` with
    /// `memory.oom.group`, so the kernel kills the whole command at the limit, `io.weight`,
    /// `pids.max`). The caller passes only controls whose controller the cgroup has.
    public func apply(_ resources: RunResources) throws(JobFailure) {
        var writes: [(file: String, value: String, field: String)] = []
        if let weight = resources.cpuWeight { writes.append(("cpu.weight", "\(weight)", "cpu_weight")) }
        if let bytes = resources.memoryMax {
            writes += [("memory.max", "\(bytes)", "memory_max"), ("memory.oom.group", "1", "memory_max")]
        }
        if let weight = resources.ioWeight { writes.append(("io.weight", "default \(weight)", "io_weight")) }
        if let tasks = resources.tasksMax { writes.append(("pids.max", "\(tasks)", "tasks_max")) }
        for write in writes where !KernelFile.write(write.value, to: directory + "/" + write.file) {
            throw JobFailure(
                code: "not_enforceable",
                message:
                    "cannot set \(write.field) in the command's cgroup (\(write.file): \(String(cString: strerror(errno)))); submit the job without it",
                retryable: false
            )
        }
    }

    /// How many of its processes the kernel's OOM killer ended (`memory.events`).
    var oomKills: Int64 {
        KernelFile.read(directory + "/memory.events").flatMap { Self.value(of: "oom_kill", in: $0) } ?? 0
    }

    /// `cgroup.procs` opened for writing: the process that writes "0" to it moves itself in,
    /// which the launcher's child does before it executes the command.
    func openProcs() -> Int32 { open(directory + "/cgroup.procs", O_WRONLY | O_CLOEXEC) }

    /// The pids in the cgroup now.
    func processes() -> [Int32] {
        (KernelFile.read(directory + "/cgroup.procs") ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    /// Sends `signal` to every process in the cgroup (the stop's SIGTERM, which `cgroup.kill`
    /// cannot send).
    func signal(_ signal: Int32) { self.signal(signal, to: processes()) }

    /// Sends `signal` to those of `pids` that are in the cgroup as it is sent. A pid read from
    /// `cgroup.procs` may have exited and been taken by an unrelated process since, which lulld,
    /// as root, could otherwise signal: each is pinned with a pidfd first and then checked, so
    /// the signal reaches the member that had the pid, or nothing.
    func signal(_ signal: Int32, to pids: [Int32]) {
        for pid in pids {
            let pidfd = lull_pidfd_open(pid)
            guard pidfd >= 0 else {
                // Before Linux 5.3 nothing pins a pid: the check narrows the window to a moment.
                if errno == ENOSYS, holds(pid) { kill(pid, signal) }
                continue
            }
            defer { close(pidfd) }
            if holds(pid) { _ = lull_pidfd_send_signal(pidfd, signal) }
        }
    }

    /// Whether process `pid` is in this cgroup now (its `0::` line in `/proc/PID/cgroup`).
    func holds(_ pid: Int32) -> Bool {
        guard let lines = KernelFile.read("/proc/\(pid)/cgroup") else { return false }
        return lines.split(separator: "\n").contains { $0 == "0::" + path }
    }

    /// SIGKILL to every process in it, at once (`cgroup.kill`, Linux 5.14), or one by one.
    func killAll() {
        if KernelFile.write("1", to: directory + "/cgroup.kill") { return }
        killOneByOne()
    }

    /// Before 5.14: the cgroup is frozen first (5.2), so that no process forks while the pids
    /// are read and a child forked meanwhile stays frozen until the next round; a fatal signal
    /// still ends a frozen process. Rounds until none is left (bounded).
    func killOneByOne() {
        let frozen = freeze(true)
        defer { if frozen { _ = freeze(false) } }
        for round in 0..<50 {
            let pids = processes()
            if pids.isEmpty { return }
            signal(SIGKILL, to: pids)
            // Killed processes stay listed until they have exited.
            if round > 0 { usleep(1_000) }
        }
    }

    /// Freezes (`true`) or thaws every process in it; false when the kernel cannot (before 5.2).
    func freeze(_ frozen: Bool) -> Bool { KernelFile.write(frozen ? "1" : "0", to: directory + "/cgroup.freeze") }

    /// Whether a process is still in it (`cgroup.events`).
    var isPopulated: Bool {
        guard let events = KernelFile.read(directory + "/cgroup.events") else { return false }
        return events.split(separator: "\n").contains("populated 1")
    }

    /// Waits, bounded, until the killed processes have left; false when some are still there.
    func awaitEmpty(seconds: Double) -> Bool {
        var waited = 0.0
        while isPopulated {
            if waited >= seconds { return false }
            usleep(5_000)
            waited += 0.005
        }
        return true
    }

    /// Removes the empty cgroup; a cgroup that still holds a process stays (and is taken over
    /// by the job's next attempt).
    func remove() { rmdir(directory) }

    /// What the cgroup has used: CPU from `cpu.stat` always; memory and I/O only where the
    /// memory and io controllers are enabled for it (nil otherwise: the caller reads them from
    /// its processes). The figures a unit's cgroup gives too (`ServiceUsage`), with
    /// `cpuSeconds` always there.
    public func usage() -> ServiceUsage? {
        guard let stat = KernelFile.read(directory + "/cpu.stat"),
            let micro = Self.value(of: "usage_usec", in: stat)
        else { return nil }
        var usage = ServiceUsage(cpuSeconds: Double(micro) / 1e6)
        usage.memoryBytes = KernelFile.read(directory + "/memory.current").flatMap { Int64($0.filter(\.isNumber)) }
        usage.memoryPeakBytes = KernelFile.read(directory + "/memory.peak").flatMap { Int64($0.filter(\.isNumber)) }
        if let io = KernelFile.read(directory + "/io.stat") {
            // One line per device: "8:0 rbytes=N wbytes=N rios=N ...".
            var (read, written) = (Int64(0), Int64(0))
            for field in io.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
                if field.hasPrefix("rbytes=") { read += Int64(field.dropFirst(7)) ?? 0 }
                if field.hasPrefix("wbytes=") { written += Int64(field.dropFirst(7)) ?? 0 }
            }
            (usage.ioReadBytes, usage.ioWriteBytes) = (read, written)
        }
        return usage
    }

    static func value(of key: String, in text: String) -> Int64? {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == key { return Int64(parts[1]) }
        }
        return nil
    }
}
