import CLullSys
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Makes finished downloads durable before they are renamed into place, sharing the work among
/// the files that finish at about the same time on one filesystem (`SharedSyncs`). A file alone
/// gets its own fsync. Several at once get one `syncfs` of their filesystem, which writes their
/// data and inodes together and flushes the disk's cache once, instead of once a file; but it
/// also writes whatever else is dirty on that filesystem, so it is taken only while the page
/// cache holds little (`sharedSyncDirtyLimit`): a download never waits for someone else's
/// gigabytes. A `syncfs` that reports a failure is followed by each file's fsync, so each file
/// learns its own.
struct FileSyncs: Sendable {
    struct Item: Sendable {
        let descriptor: CInt
        let path: String
    }

    /// How a batch is made durable.
    enum Plan: Equatable {
        case eachFile
        case wholeFilesystem
    }

    /// Dirty and write-back bytes (all filesystems) above which a batch is synced file by file.
    static let sharedSyncDirtyLimit: Int64 = 64 << 20

    static func plan(files: Int, dirtyBytes: Int64?) -> Plan {
        guard files > 1, let dirtyBytes, dirtyBytes <= sharedSyncDirtyLimit else { return .eachFile }
        return .wholeFilesystem
    }

    private let shared: SharedSyncs<UInt64, Item>

    init(pool: NIOThreadPool, calls: some DataSyncCalls = KernelDataSync()) {
        shared = SharedSyncs { _, batch in
            do {
                return try await pool.runIfActive {
                    if Self.plan(files: batch.count, dirtyBytes: calls.dirtyBytes()) == .wholeFilesystem,
                        calls.syncFilesystem(of: batch[0].descriptor) == 0
                    {
                        return Array(repeating: nil, count: batch.count)
                    }
                    return batch.map { item in
                        let code = calls.syncFile(item.descriptor)
                        return code == 0 ? nil : FileFailure(operation: "fsync", path: item.path, errno: code)
                    }
                }
            } catch {
                // The pool has stopped: the daemon is shutting down and nothing was synced.
                return batch.map { FileFailure(operation: "fsync", path: $0.path, errno: ECANCELED) }
            }
        }
    }

    /// Returns once the data and size of the open file `descriptor` (on the filesystem
    /// `device`) are on disk, by a sync that began after this call.
    func sync(_ descriptor: CInt, path: String, device: UInt64) async throws(FileFailure) {
        try await shared.sync(Item(descriptor: descriptor, path: path), under: device)
    }

    /// How many wait for the next sync of `device`, the one running not counted.
    func waitingCount(device: UInt64) -> Int { shared.waitingCount(under: device) }
}

/// The kernel calls `FileSyncs` makes: a seam for tests.
protocol DataSyncCalls: Sendable {
    /// fsync(2) of one file: 0, or the errno.
    func syncFile(_ descriptor: CInt) -> CInt
    /// syncfs(2) of the filesystem holding the file: 0, or the errno.
    func syncFilesystem(of descriptor: CInt) -> CInt
    /// Bytes dirty or under write-back in the page cache, or nil when unknown.
    func dirtyBytes() -> Int64?
}

struct KernelDataSync: DataSyncCalls {
    func syncFile(_ descriptor: CInt) -> CInt { fsync(descriptor) == 0 ? 0 : errno }

    func syncFilesystem(of descriptor: CInt) -> CInt { lull_syncfs(descriptor) == 0 ? 0 : errno }

    func dirtyBytes() -> Int64? {
        guard let text = KernelFile.read("/proc/meminfo") else { return nil }
        return Self.dirtyBytes(meminfo: text)
    }

    /// `Dirty` plus `Writeback` from /proc/meminfo's text (in kB there), nil if either is missing.
    static func dirtyBytes(meminfo: String) -> Int64? {
        var dirty: Int64?
        var writeback: Int64?
        for line in meminfo.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kibibytes = Int64(fields[1]) else { continue }
            switch fields[0] {
            case "Dirty:": dirty = kibibytes << 10
            case "Writeback:": writeback = kibibytes << 10
            default: continue
            }
            if dirty != nil, writeback != nil { break }
        }
        guard let dirty, let writeback else { return nil }
        return dirty + writeback
    }
}
