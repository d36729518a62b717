import LullCore
import LullKernelFiles
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The process groups of running commands, recorded in `run-logs/running-groups` (the leader's
/// pid and its start time), so that what a crashed daemon left running is ended when lulld
/// starts again rather than run twice beside its job's next attempt. The start time tells the
/// leader from a later process that got the same pid. Without systemd's cgroup nothing else
/// holds a command's processes together; a process that left the group (setsid) is not found.
///
/// The file is a row of fixed-size slots, kept open: a command takes the lowest free slot and
/// blanks it when it ends, one `pwrite` each. A file per command, created and deleted, cost an
/// inode each, and rewriting a truncated file makes ext4 start writing it back at `close`.
public final class LeftoverGroups: Sendable {
    public let path: String
    static let slotSize = 32

    private struct Slots {
        var descriptor: Int32 = -1
        var taken: Set<Int> = []
    }
    private let slots = Mutex(Slots())
    /// Whether the last record failed: the next failures are the same trouble, told once.
    private let failing = Atomic<Bool>(false)

    public init(path: String) {
        self.path = path
    }

    deinit {
        slots.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// Records the group of `pid` as running; returns its slot, to clear when the group has ended.
    /// Throws, saying why, when it cannot: the command runs all the same, but a lulld that stops
    /// abruptly meanwhile leaves it running, and the next start cannot end it.
    func record(_ pid: Int32) throws(RecordFailure) -> Int {
        do {
            let slot = try take(pid)
            failing.store(false, ordering: .relaxed)
            return slot
        } catch {
            var failure = error
            failure.first = !failing.exchange(true, ordering: .relaxed)
            throw failure
        }
    }

    private func take(_ pid: Int32) throws(RecordFailure) -> Int {
        guard let started = Self.startTime(of: pid) else {
            throw RecordFailure(pid: pid, path: path, reason: "/proc/\(pid)/stat could not be read")
        }
        let taken = slots.withLock { slots -> Result<(descriptor: Int32, slot: Int), RecordFailure> in
            if slots.descriptor < 0 {
                let directory = PathText.directory(of: path)
                if mkdir(directory, 0o700) != 0, case let code = errno, code != EEXIST {
                    return .failure(
                        RecordFailure(pid: pid, path: path, reason: "mkdir \(directory): \(Self.text(code))")
                    )
                }
                slots.descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
                guard slots.descriptor >= 0 else {
                    let code = errno
                    return .failure(RecordFailure(pid: pid, path: path, reason: "open: \(Self.text(code))"))
                }
            }
            let free = (0...slots.taken.count).first { !slots.taken.contains($0) }!
            slots.taken.insert(free)
            return .success((slots.descriptor, free))
        }
        switch taken {
        case .failure(let failure): throw failure
        case .success(let taken):
            if let code = Self.write("\(pid) \(started)", to: taken.descriptor, slot: taken.slot) {
                release(taken.slot)
                throw RecordFailure(
                    pid: pid,
                    path: path,
                    reason: "write: \(code == 0 ? "short write" : Self.text(code))"
                )
            }
            return taken.slot
        }
    }

    /// Why a group could not be recorded.
    struct RecordFailure: Error, CustomStringConvertible {
        let pid: Int32
        let path: String
        let reason: String
        /// The first failure since a record last succeeded (or since start-up).
        var first = true

        var description: String { "cannot record process group \(pid) in \(path) (\(reason))" }
    }

    /// The group has ended: nothing to end later.
    func clear(_ slot: Int) {
        if let descriptor = slots.withLock({ $0.descriptor >= 0 ? $0.descriptor : nil }) {
            _ = Self.write("", to: descriptor, slot: slot)
        }
        release(slot)
    }

    /// Ends (SIGKILL) every recorded group whose leader is still the process that was started
    /// then, and only then forgets them: for start-up, before any command runs. The first start
    /// with this file also reads the `ID.group` files an older lulld wrote beside the logs.
    /// Returns the pids it ended.
    @discardableResult
    public func endAll() -> [Int32] {
        let directory = PathText.directory(of: path)
        var records: [String] = []
        var older: [String] = []
        if let bytes = KernelFile.readBytes(path) {
            // Slot by slot: a slot never written is a hole of NULs, without a newline.
            for start in stride(from: 0, to: bytes.count, by: Self.slotSize) {
                let slot = bytes[start..<min(start + Self.slotSize, bytes.count)]
                records.append(String(decoding: slot.filter { $0 != 0 }, as: UTF8.self))
            }
        } else {
            older = KernelFile.names(in: directory).filter { $0.hasSuffix(".group") }.map { directory + "/" + $0 }
            records += older.compactMap(KernelFile.read)
        }
        let ended = records.compactMap(Self.end)
        for file in older { unlink(file) }
        if mkdir(directory, 0o700) != 0, errno != EEXIST { return ended }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 { close(descriptor) }
        return ended
    }

    private func release(_ slot: Int) {
        _ = slots.withLock { $0.taken.remove(slot) }
    }

    /// Ends the group a record names, if its leader is still the process that was started then.
    private static func end(_ record: String) -> Int32? {
        let fields = record.split { $0 == " " || $0 == "\n" }
        guard fields.count == 2, let pid = Int32(fields[0]), pid > 1, let started = UInt64(fields[1]),
            startTime(of: pid) == started
        else { return nil }
        kill(-pid, SIGKILL)
        return pid
    }

    /// Writes `text` into a slot, padded with spaces (a blank slot records nothing). Nil when
    /// written; else the errno, 0 for a short write.
    private static func write(_ text: String, to descriptor: Int32, slot: Int) -> Int32? {
        var bytes = Array(text.utf8.prefix(slotSize - 1))
        bytes += [UInt8](repeating: UInt8(ascii: " "), count: slotSize - 1 - bytes.count) + [UInt8(ascii: "\n")]
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, slotSize, off_t(slot * slotSize)) }
        return written == slotSize ? nil : written < 0 ? errno : 0
    }

    private static func text(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let stat = KernelFile.read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so start time (22) is the 20th.
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}
