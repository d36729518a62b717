import Foundation

/// This process's umask, read from `/proc/self/status` (Linux 4.7+) rather than with `umask()`,
/// which can only be read by changing it.
enum CallerUmask {
    static var current: UInt32? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
            return UInt32(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        }
        return nil
    }
}
