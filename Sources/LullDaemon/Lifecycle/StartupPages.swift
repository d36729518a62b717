import Foundation
import Logging
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Hands the pages of lulld's own code and read-only data back to the kernel once start-up is
/// over. Most of what an idle daemon holds is file pages of its binary that start-up touched
/// (config parsing, the store's migrations, the runtime's conformance scans), each fault mapping
/// the pages around it; the steady state needs a fraction of them. `MADV_PAGEOUT` reclaims the
/// pages only this process maps, and what is needed again faults back in, as after the kernel
/// reclaimed them under pressure. Nothing writable is touched.
enum StartupPages {
    /// Linux 5.4's `MADV_PAGEOUT`; older kernels answer EINVAL and nothing changes.
    static let pageOutAdvice: CInt = 21

    /// Releases the pages as start-up ends, on the thread pool (it reads the mappings and the
    /// kernel walks them): a later release would wake an idle daemon for it.
    static func release(logger: Logger) async {
        let advised = try? await NIOThreadPool.singleton.runIfActive { pageOutOwnImage() }
        logger.debug("start-up pages released", metadata: ["bytes": "\(advised ?? 0)"])
    }

    /// Advises every read-only mapping of the running executable out; returns the bytes advised.
    @discardableResult
    static func pageOutOwnImage(maps: String = "/proc/self/maps") -> Int {
        guard let image = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            let text = try? String(contentsOfFile: maps, encoding: .utf8)
        else { return 0 }
        var advised = 0
        for line in text.split(separator: "\n") {
            guard let mapping = Mapping(line), mapping.path == image, !mapping.writable else { continue }
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            if madvise(start, mapping.length, pageOutAdvice) == 0 { advised += mapping.length }
        }
        return advised
    }

    /// One line of /proc/PID/maps: `start-end perms offset dev inode path`.
    struct Mapping {
        var start: UInt
        var length: Int
        var writable: Bool
        var path: String

        init?(_ line: Substring) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                end > start
            else { return nil }
            self.start = start
            length = Int(end - start)
            writable = fields[1].contains("w")
            path = fields[5].trimmingCharacters(in: .whitespaces)
        }
    }
}
