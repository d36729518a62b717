import LullCore
import LullKernelFiles

#if canImport(Glibc)
import Glibc
#endif

/// Reads what process groups use from /proc, every group asked for in one pass over the
/// system's processes: finding a group's members takes reading each process's `stat`, so one
/// pass per sampling interval serves all running commands. Counted per live member: its CPU
/// time with that of the children it has reaped (as `wait4`'s rusage counts them), its resident
/// memory, and from `/proc/PID/io` the bytes it (and its reaped children) read from and wrote to
/// storage. A process that left the group (`setsid`) is not counted.
public enum GroupUsage {
    public struct Reading: Sendable, Equatable {
        public var cpuSeconds: Double = 0
        public var memoryBytes: Int64 = 0
        /// nil when the kernel does not count I/O, or a member's counts could not be read.
        public var ioReadBytes: Int64? = 0
        public var ioWriteBytes: Int64? = 0
        public var processes = 0
    }

    /// Whether the kernel counts storage I/O per task (`CONFIG_TASK_IO_ACCOUNTING`). Without it
    /// `/proc/PID/io` is missing and rusage's block counts stay 0, which must not read as "none".
    public static let countsIO = access("/proc/self/io", R_OK) == 0

    /// The usage of each of `groups` that has a live process; a group with none is left out.
    public static func read(groups: Set<Int32>, proc: String = "/proc") -> [Int32: Reading] {
        guard !groups.isEmpty else { return [:] }
        return read(proc: proc) { _, group in groups.contains(group) ? group : nil }
    }

    /// The usage of the processes `key` gives a key (from the pid and the process group), by key.
    public static func read<Key: Hashable>(
        proc: String = "/proc",
        key: (_ pid: Int32, _ group: Int32) -> Key?
    ) -> [Key: Reading] {
        guard let directory = opendir(proc) else { return [:] }
        defer { closedir(directory) }
        let root = dirfd(directory)
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let countsIO = proc == "/proc" ? Self.countsIO : access("\(proc)/self/io", R_OK) == 0
        var readings: [Key: Reading] = [:]
        var buffer = [UInt8](repeating: 0, count: 1024)
        // "PID/stat" or "PID/io", NUL-terminated, built in place for each process.
        var path = [CChar](repeating: 0, count: 288)
        while let entry = readdir(directory) {
            var pid: Int32 = 0
            let digits = DirectoryEntry.withName(entry) { name -> Int in
                var count = 0
                while count < name.count, count < path.count - 8 {
                    guard name[count] >= 0x30 && name[count] <= 0x39 else { return 0 }
                    path[count] = CChar(bitPattern: name[count])
                    pid = pid &* 10 &+ Int32(name[count] - 0x30)
                    count += 1
                }
                return count
            }
            guard digits > 0 else { continue }
            let length = read(root, &path, digits, "/stat", into: &buffer)
            guard length > 0, let stat = Stat(buffer[..<length]), let owner = key(pid, stat.group) else { continue }
            var reading = readings[owner] ?? Reading()
            reading.processes += 1
            reading.cpuSeconds += Double(stat.cpuTicks) / ticks
            reading.memoryBytes += stat.residentPages * page
            if countsIO {
                let ioLength = read(root, &path, digits, "/io", into: &buffer)
                if ioLength > 0, let io = IO(buffer[..<ioLength]) {
                    reading.ioReadBytes = reading.ioReadBytes.map { $0 + io.read }
                    reading.ioWriteBytes = reading.ioWriteBytes.map { $0 + io.write }
                } else if ioLength < 0 && errno != ENOENT && errno != ESRCH {
                    // Not ours to read (another user's process): a partial sum would understate.
                    (reading.ioReadBytes, reading.ioWriteBytes) = (nil, nil)
                }
            } else {
                (reading.ioReadBytes, reading.ioWriteBytes) = (nil, nil)
            }
            readings[owner] = reading
        }
        return readings
    }

    /// The file `PID` + `suffix` under `root` (the /proc directory) into `buffer`: its length,
    /// or -1 with `errno` set.
    private static func read(
        _ root: Int32,
        _ path: inout [CChar],
        _ digits: Int,
        _ suffix: StaticString,
        into buffer: inout [UInt8]
    ) -> Int {
        var end = digits
        for byte in UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount) {
            path[end] = CChar(bitPattern: byte)
            end += 1
        }
        path[end] = 0
        let fd = openat(root, path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        return buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    }

    /// The fields of `/proc/PID/stat` a reading needs.
    struct Stat {
        var group: Int32
        /// utime + stime + cutime + cstime.
        var cpuTicks: Int64
        var residentPages: Int64

        init?(_ bytes: ArraySlice<UInt8>) {
            // After "(comm)", which may hold spaces and parentheses: state(0) ppid(1) pgrp(2) ...
            // utime(11) stime(12) cutime(13) cstime(14) ... rss(21).
            guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
            var (field, value, inField) = (-1, Int64(0), false)
            var (group, ticks, rss): (Int64?, Int64, Int64?) = (nil, 0, nil)
            for byte in bytes[(close + 1)...] {
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                    if inField {
                        switch field {
                        case 2: group = value
                        case 11...14: ticks += value
                        case 21: rss = value
                        default: break
                        }
                        if field == 21 { break }
                    }
                    inField = false
                    continue
                }
                if !inField { (field, value, inField) = (field + 1, 0, true) }
                if byte >= 0x30 && byte <= 0x39 { value = value &* 10 &+ Int64(byte - 0x30) }
            }
            guard let group, let rss, let pgid = Int32(exactly: group) else { return nil }
            (self.group, cpuTicks, residentPages) = (pgid, ticks, rss)
        }
    }

    /// `read_bytes` and `write_bytes` of `/proc/PID/io`: what reached (or came from) storage.
    struct IO {
        var read: Int64
        var write: Int64

        init?(_ bytes: ArraySlice<UInt8>) {
            var (read, write): (Int64?, Int64?) = (nil, nil)
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
                let key = line[..<colon]
                let digits = line[(colon + 1)...].filter { $0 >= 0x30 && $0 <= 0x39 }
                let value = digits.reduce(Int64(0)) { $0 &* 10 &+ Int64($1 - 0x30) }
                if key.elementsEqual("read_bytes".utf8) { read = value }
                if key.elementsEqual("write_bytes".utf8) { write = value }
            }
            guard let read, let write else { return nil }
            (self.read, self.write) = (read, write)
        }
    }
}
