import LullCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The process groups of running commands, recorded in `run-logs/groups/N` (the leader's pid and
/// its start time), so that what a crashed daemon left running is ended when lulld starts again
/// rather than run twice beside its job's next attempt. The start time tells the leader from a
/// later process that got the same pid. Without systemd's cgroup nothing else holds a command's
/// processes together; a process that left the group (setsid) is not found.
///
/// A command takes the lowest free slot, and the slot's file is emptied, not removed, when the
/// command ends: the files are made once and rewritten, so a job makes no file of its own to
/// create and delete (on ext4 without a journal each deleted inode slows later creations).
public final class LeftoverGroups: Sendable {
    public let directory: String
    private let taken = Mutex<Set<Int>>([])

    public init(directory: String) {
        self.directory = directory
    }

    /// Records the group of `pid` as running; returns its slot, to clear when the group has ended.
    func record(_ pid: Int32) -> Int? {
        guard let started = Self.startTime(of: pid) else { return nil }
        let slot = taken.withLock { taken in
            let free = (0...taken.count).first { !taken.contains($0) }!
            taken.insert(free)
            return free
        }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            release(slot)
            return nil
        }
        guard Self.rewrite(path(of: slot), "\(pid) \(started)\n") else {
            release(slot)
            return nil
        }
        return slot
    }

    /// The group has ended and its leader is reaped: nothing to end later.
    func clear(_ slot: Int) {
        _ = Self.rewrite(path(of: slot), "")
        release(slot)
    }

    /// Ends (SIGKILL) every recorded group whose leader is still the process that was started
    /// then, and forgets them all: for start-up, before any command runs. Also reads the
    /// `ID.group` files an older lulld wrote beside the logs. Returns the pids it ended.
    @discardableResult
    public func endAll() -> [Int32] {
        let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        var ended: [Int32] = []
        for name in Self.names(in: directory) {
            let path = directory + "/" + name
            if let pid = Self.end(recordedIn: path) { ended.append(pid) }
            _ = Self.rewrite(path, "")
        }
        for name in Self.names(in: parent) where name.hasSuffix(".group") {
            let path = parent + "/" + name
            if let pid = Self.end(recordedIn: path) { ended.append(pid) }
            unlink(path)
        }
        return ended
    }

    private func path(of slot: Int) -> String { directory + "/\(slot)" }

    private func release(_ slot: Int) {
        _ = taken.withLock { $0.remove(slot) }
    }

    private static func end(recordedIn path: String) -> Int32? {
        guard let text = KernelFile.read(path) else { return nil }
        let fields = text.split { $0 == " " || $0 == "\n" }
        guard fields.count == 2, let pid = Int32(fields[0]), pid > 1, let started = UInt64(fields[1]),
            startTime(of: pid) == started
        else { return nil }
        kill(-pid, SIGKILL)
        return pid
    }

    /// Replaces the file's content (making it if it is missing); false if it could not be written.
    private static func rewrite(_ path: String, _ text: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }

    private static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let stat = KernelFile.read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so start time (22) is the 20th.
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}
