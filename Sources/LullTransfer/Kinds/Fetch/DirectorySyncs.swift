import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// Renames finished downloads into place and shares the fsync of their directory among those
/// that finish at about the same time: a rename is durable once an fsync of its directory that
/// began after the rename has returned, so the renames that arrive while one fsync runs are made,
/// then synced, together by the next. A queue of small files landing in one directory so pays a
/// share of a directory fsync per file instead of one each, and one visit to the thread pool.
/// Directories are told apart by path and owner (everything runs with the owner's rights).
package struct DirectorySyncs: Sendable {
    private struct Key: Hashable, Sendable {
        let path: String
        let owner: OwnerID
    }

    private struct Rename: Sendable {
        let from: String
        let to: String
        /// The daemon's one FileAccess, which each waiter brings.
        let files: FileAccess
    }

    private let shared = SharedSyncs<Key, Rename> { key, batch in
        do {
            return try await batch[0].files.run(as: key.owner) {
                // Over whatever is at the destination, a symlink included, without following it.
                let failures = batch.map { rename in
                    Glibc.rename(rename.from, rename.to) == 0
                        ? nil : FileFailure(operation: "rename into place at", path: rename.to, errno: errno)
                }
                // As before it was shared, a directory that cannot be opened or synced is left as it is.
                let descriptor = Glibc.open(key.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                if descriptor >= 0 {
                    _ = fsync(descriptor)
                    Glibc.close(descriptor)
                }
                return failures
            }
        } catch {
            return batch.map {
                error as? FileFailure ?? FileFailure(operation: "rename into place at", path: $0.to, errno: ECANCELED)
            }
        }
    }

    /// Renames `from` over `to` in `directory` and returns once an fsync of the directory, begun
    /// after the rename, has returned.
    package func rename(
        _ from: String,
        to: String,
        in directory: String,
        as owner: OwnerID,
        files: FileAccess
    )
        async throws(FileFailure)
    {
        try await shared.sync(Rename(from: from, to: to, files: files), under: Key(path: directory, owner: owner))
    }
}
