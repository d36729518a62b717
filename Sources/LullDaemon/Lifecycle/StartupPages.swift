import Foundation
import Logging
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Hands the pages of lulld's own code and read-only data back to the kernel once start-up is
/// over. Most of what an idle daemon holds is file pages of its binary that start-up touched
/// (config parsing, the store's migrations, the runtime's conformance scans), each fault mapping
/// the pages around it; the steady state needs a fraction of them. `MADV_PAGEOUT` reclaims the
/// pages only this process maps, and what is needed again faults back in, as after the kernel
/// reclaimed them under pressure. Nothing writable is touched.
///
/// Until the first request the same mappings are advised `MADV_RANDOM`: otherwise each later
/// fault reads around the page it needs and maps the large folio that read made, and the few
/// faults of an idle daemon's first timers bring back megabytes of code it never runs again.
/// The first request, or the first job started, lets faults read around again, so that a busy
/// daemon's code comes back in the kernel's large reads rather than a page at a time from the disk.
final class StartupPages: Sendable {
    /// Linux 5.4's `MADV_PAGEOUT`; older kernels answer EINVAL and nothing changes.
    static let pageOutAdvice: CInt = 21

    private enum Phase {
        case starting
        /// Advised to be read page by page, until the first request.
        case released([Mapping])
        /// Serving: faults read around as usual.
        case busy
    }

    private let phase = Mutex(Phase.starting)
    /// Set once busy, so that every later request costs one atomic load.
    private let settled = Atomic<Bool>(false)

    /// Releases the pages as start-up ends, on the thread pool (it reads the mappings and the
    /// kernel walks them): a later release would wake an idle daemon for it.
    func release(logger: Logger) async {
        let bytes = try? await NIOThreadPool.singleton.runIfActive { self.releaseNow() }
        logger.debug("start-up pages released", metadata: ["bytes": "\(bytes ?? 0)"])
    }

    /// Advises every read-only mapping of the running executable out, and, unless a request
    /// came first, to be read back one page at a time until one does; returns the bytes advised.
    @discardableResult
    func releaseNow() -> Int {
        let mappings = Self.imageMappings()
        // Random first: the code this loop runs after a page-out must not read around again.
        phase.withLock { phase in
            guard case .starting = phase else { return }
            for mapping in mappings { _ = madvise(mapping.address, mapping.length, MADV_RANDOM) }
            phase = .released(mappings)
        }
        var bytes = 0
        for mapping in mappings where madvise(mapping.address, mapping.length, Self.pageOutAdvice) == 0 {
            bytes += mapping.length
        }
        return bytes
    }

    /// Called for each request and each job's start: the first lets faults read around again (a
    /// flag change in the kernel, no I/O), or, before the release, keeps the release from
    /// advising otherwise.
    func workArrived() {
        guard !settled.load(ordering: .relaxed) else { return }
        phase.withLock { phase in
            if case .released(let mappings) = phase {
                for mapping in mappings { _ = madvise(mapping.address, mapping.length, MADV_NORMAL) }
            }
            phase = .busy
        }
        settled.store(true, ordering: .relaxed)
    }

    /// The running executable's read-only mappings.
    static func imageMappings(maps: String = "/proc/self/maps") -> [Mapping] {
        guard let image = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            let text = try? String(contentsOfFile: maps, encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").compactMap(Mapping.init).filter { $0.path == image && !$0.writable }
    }

    /// One line of /proc/PID/maps: `start-end perms offset dev inode path`.
    struct Mapping: Sendable {
        var start: UInt
        var length: Int
        var writable: Bool
        var path: String

        var address: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: start) }

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
