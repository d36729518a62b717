import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// Shares the fsync of a directory among the files renamed into it at about the same time: a
/// rename is durable once an fsync of its directory that began after the rename has returned,
/// so a queue of small files landing in one directory pays a share of a directory fsync per
/// file instead of one each. Directories are told apart by path and owner (each fsync opens the
/// directory with its owner's rights).
struct DirectorySyncs: Sendable {
    private struct Key: Hashable, Sendable {
        let path: String
        let owner: OwnerID
    }

    // Each waiter brings its FileAccess; all of a batch's are the daemon's one.
    private let shared = SharedSyncs<Key, FileAccess> { key, batch in
        // As before it was shared, a directory that cannot be opened or synced is left as it is.
        _ = try? await batch[0].run(as: key.owner) {
            let descriptor = Glibc.open(key.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if descriptor >= 0 {
                _ = fsync(descriptor)
                Glibc.close(descriptor)
            }
        }
        return Array(repeating: nil, count: batch.count)
    }

    /// Returns once an fsync of `directory`, begun after this call, has returned.
    func sync(_ directory: String, as owner: OwnerID, files: FileAccess) async {
        try? await shared.sync(files, under: Key(path: directory, owner: owner))
    }
}
