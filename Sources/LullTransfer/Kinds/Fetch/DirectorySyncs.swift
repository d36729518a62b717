import Foundation
import LullCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Shares the fsync of a directory among the files renamed into it at about the same time, as
/// group commit shares a commit: a rename is durable once an fsync of its directory that began
/// after the rename has returned. While one fsync runs, the renames that finish meanwhile wait
/// for the next one, which serves them all, so a queue of small files landing in one directory
/// pays a share of a directory fsync per file instead of one each. Directories are told apart
/// by path and owner (each fsync opens the directory with its owner's rights).
final class DirectorySyncs: Sendable {
    private struct Key: Hashable {
        let path: String
        let owner: OwnerID
    }

    /// Per directory with an fsync running: who waits for the next one.
    private let waiting = Mutex<[Key: [CheckedContinuation<Void, Never>]]>([:])

    /// Returns once an fsync of `directory`, begun after this call, has returned. As before it
    /// was shared, a directory that cannot be opened or synced is left as it is.
    func sync(_ directory: String, as owner: OwnerID, files: FileAccess) async {
        let key = Key(path: directory, owner: owner)
        await withCheckedContinuation { continuation in
            let first = waiting.withLock { waiting in
                guard waiting[key] == nil else {
                    waiting[key]!.append(continuation)
                    return false
                }
                waiting[key] = [continuation]
                return true
            }
            if first { Task { await self.drain(key, files: files) } }
        }
    }

    /// Syncs the directory for everyone waiting, again while more arrive, then lets it go.
    private func drain(_ key: Key, files: FileAccess) async {
        while true {
            let batch = waiting.withLock { waiting in
                let batch = waiting[key] ?? []
                waiting[key] = batch.isEmpty ? nil : []
                return batch
            }
            guard !batch.isEmpty else { return }
            _ = try? await files.run(as: key.owner) {
                let descriptor = Glibc.open(key.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                if descriptor >= 0 {
                    _ = fsync(descriptor)
                    Glibc.close(descriptor)
                }
            }
            for continuation in batch { continuation.resume() }
        }
    }
}
