import CLullSys
import LullCore
import LullKernelFiles

#if canImport(Glibc)
import Glibc
#endif

/// Makes finished downloads durable before they are renamed into place, sharing the work among
/// the files of one owner that finish at about the same time on one filesystem (`SharedSyncs`).
/// Each file first gets its mode (so the mode is durable with it); a file alone then gets its
/// own fsync; several at once get one `syncfs` of their filesystem, which writes their data and
/// inodes together and flushes the disk's cache once, instead of once a file. A `syncfs` also
/// writes whatever else is dirty on that filesystem, so it is taken only while the page cache
/// holds little (`sharedSyncDirtyLimit`): a download never waits for someone else's gigabytes.
/// A `syncfs` that reports a failure is followed by each file's fsync, so each file learns its
/// own. Every file is closed once synced or failed: the whole trip is one visit to the pool.
package struct FileSyncs: Sendable {
    struct Item: Sendable {
        let descriptor: CInt
        let path: String
        let mode: FileMode?
        /// The daemon's one FileAccess, which each waiter brings.
        let files: FileAccess
    }

    private struct Key: Hashable, Sendable {
        let device: UInt64
        let owner: OwnerID
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

    private let shared: SharedSyncs<Key, Item>

    init(calls: some DataSyncCalls = KernelDataSync()) {
        shared = SharedSyncs { key, batch in
            do {
                // The mode is set with the owner's rights: a daemon without CAP_FOWNER may not
                // change another user's file.
                return try await batch[0].files.run(as: key.owner) {
                    for item in batch { if let mode = item.mode { calls.setMode(item.descriptor, mode) } }
                    let failures = Self.sync(batch, calls: calls)
                    for item in batch { calls.close(item.descriptor) }
                    return failures
                }
            } catch {
                // The pool has stopped (the daemon is shutting down), or the owner's identity
                // could not be taken on: nothing was synced.
                return batch.map { item in
                    calls.close(item.descriptor)
                    return error as? FileFailure ?? FileFailure(operation: "fsync", path: item.path, errno: ECANCELED)
                }
            }
        }
    }

    private static func sync(_ batch: [Item], calls: some DataSyncCalls) -> [FileFailure?] {
        // /proc/meminfo is read only when there is something to share.
        let dirty = batch.count > 1 ? calls.dirtyBytes() : nil
        if plan(files: batch.count, dirtyBytes: dirty) == .wholeFilesystem,
            calls.syncFilesystem(of: batch[0].descriptor) == 0
        {
            return Array(repeating: nil, count: batch.count)
        }
        return batch.map { item in
            let code = calls.syncFile(item.descriptor)
            return code == 0 ? nil : FileFailure(operation: "fsync", path: item.path, errno: code)
        }
    }

    /// Gives the open file `descriptor` its `mode`, returns once its data and size are on disk
    /// (by a sync that began after this call), and closes it, failed or not. `device` is its
    /// filesystem's; `owner` the job's.
    package func syncAndClose(
        _ descriptor: CInt,
        path: String,
        mode: FileMode?,
        device: UInt64,
        owner: OwnerID,
        files: FileAccess
    ) async throws(FileFailure) {
        let item = Item(descriptor: descriptor, path: path, mode: mode, files: files)
        try await shared.sync(item, under: Key(device: device, owner: owner))
    }

    /// How many wait for the next sync of `device` for `owner`, the one running not counted.
    func waitingCount(device: UInt64, owner: OwnerID) -> Int {
        shared.waitingCount(under: Key(device: device, owner: owner))
    }
}

/// The kernel calls `FileSyncs` makes: a seam for tests.
protocol DataSyncCalls: Sendable {
    /// fchmod(2); a filesystem that keeps no modes (vfat) refuses it, which is not a failure.
    func setMode(_ descriptor: CInt, _ mode: FileMode)
    /// fsync(2) of one file: 0, or the errno.
    func syncFile(_ descriptor: CInt) -> CInt
    /// syncfs(2) of the filesystem holding the file: 0, or the errno.
    func syncFilesystem(of descriptor: CInt) -> CInt
    /// Bytes dirty or under write-back in the page cache, or nil when unknown.
    func dirtyBytes() -> Int64?
    func close(_ descriptor: CInt)
}

struct KernelDataSync: DataSyncCalls {
    func setMode(_ descriptor: CInt, _ mode: FileMode) { _ = fchmod(descriptor, mode_t(mode.rawValue)) }

    func syncFile(_ descriptor: CInt) -> CInt { fsync(descriptor) == 0 ? 0 : errno }

    func syncFilesystem(of descriptor: CInt) -> CInt { lull_syncfs(descriptor) == 0 ? 0 : errno }

    func close(_ descriptor: CInt) { _ = Glibc.close(descriptor) }

    func dirtyBytes() -> Int64? {
        guard let bytes = KernelFile.readBytes("/proc/meminfo") else { return nil }
        return Self.dirtyBytes(meminfo: MeminfoLines.values(of: Self.dirtyLines, in: bytes))
    }

    private static let dirtyLines = ["Dirty", "Writeback"]

    /// `Dirty` plus `Writeback` from /proc/meminfo's text, nil if either is missing.
    static func dirtyBytes(meminfo text: String) -> Int64? {
        dirtyBytes(meminfo: MeminfoLines.values(of: dirtyLines, in: text))
    }

    private static func dirtyBytes(meminfo values: [UInt64?]) -> Int64? {
        guard let dirty = values[0], let writeback = values[1] else { return nil }
        let (sum, overflowed) = dirty.addingReportingOverflow(writeback)
        return overflowed ? .max : Int64(clamping: sum)
    }
}
