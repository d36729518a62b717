#if canImport(Glibc)
import Glibc
#endif

/// The process group of a job's running command, written beside its log (`ID.group`: the
/// leader's pid and its start time), so that a command a crashed daemon left running is ended
/// before the job starts again rather than running twice. The start time tells the leader from
/// a later process that got the same pid. Without systemd's cgroup nothing else holds a
/// command's processes together; a process that left the group (setsid) is not found.
struct LeftoverGroup {
    let path: String

    /// Records the group of `pid` as running.
    func record(_ pid: Int32) {
        guard let started = Self.startTime(of: pid) else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        let line = Array("\(pid) \(started)\n".utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    /// The group has ended and its leader is reaped: nothing to end later.
    func clear() { unlink(path) }

    /// Ends (SIGKILL) the group recorded at `path` if its leader is still the process that was
    /// started then, and forgets it. Returns the pid it ended.
    @discardableResult
    func endIfRunning() -> Int32? {
        defer { clear() }
        guard let text = KernelFile.read(path) else { return nil }
        let fields = text.split { $0 == " " || $0 == "\n" }
        guard fields.count == 2, let pid = Int32(fields[0]), pid > 1, let started = UInt64(fields[1]),
            Self.startTime(of: pid) == started
        else { return nil }
        kill(-pid, SIGKILL)
        return pid
    }

    /// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let stat = KernelFile.read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so start time (22) is the 20th.
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}
