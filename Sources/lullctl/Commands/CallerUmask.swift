#if canImport(Glibc)
import Glibc
#endif

/// This process's umask, read from `/proc/self/status` (Linux 4.7+) rather than with `umask()`,
/// which can only be read by changing it. Read with plain `read(2)`: this runs on every
/// `lullctl submit fetch`, which should not pay for setting up Foundation's file reading.
enum CallerUmask {
    static var current: UInt32? {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65_536 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return umask(inStatus: String(decoding: bytes, as: UTF8.self))
    }

    /// The `Umask:` line of a `/proc/PID/status` text, octal.
    static func umask(inStatus status: String) -> UInt32? {
        for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
            return UInt32(line.dropFirst("Umask:".count).filter { $0 != " " && $0 != "\t" }, radix: 8)
        }
        return nil
    }
}
