#if canImport(Glibc)
import Glibc
#endif

/// Whole reads and single writes of the kernel's small files (/proc, /sys, cgroupfs), without
/// Foundation: the sensors, the sampler and run jobs read them several times a second, on
/// attempts' own threads as well as the event loops. These files are made by the kernel in
/// memory, so a read costs microseconds and is fine on any thread.
public enum KernelFile {
    /// The file's bytes, or nil when it cannot be opened or read.
    public static func readBytes(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // procfs and sysfs report a size of 0 or 4096 whatever they hold: read until the end.
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes += buffer.prefix(count)
        }
    }

    /// The file's text (invalid UTF-8 replaced), or nil when it cannot be opened or read.
    public static func read(_ path: String) -> String? {
        readBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names in a directory, `.` and `..` left out; none when it cannot be opened.
    public static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = DirectoryEntry.withName(entry) { String(decoding: $0, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Writes `text` in one `write(2)`, as cgroupfs wants each value; false (errno set) when refused.
    @discardableResult
    public static func write(_ text: String, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }
}
