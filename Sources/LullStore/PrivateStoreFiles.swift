#if canImport(Glibc)
import Glibc
#endif

/// The store holds other users' secrets (push headers, `Authorization` tokens), so its files
/// are the daemon's alone whatever the umask: SQLite creates `-wal` and `-shm` with the
/// database file's mode, so the database file is created 0600 before SQLite opens it.
enum PrivateStoreFiles {
    static let mode: mode_t = 0o600

    /// Creates the database file 0600 when absent and narrows the mode of the store's files
    /// left wider by an earlier version. Returns the paths whose mode it narrowed.
    static func prepare(databasePath path: String) throws -> [String] {
        let descriptor = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw StoreFileError(path: path, errno: errno) }
        close(descriptor)
        var narrowed: [String] = []
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o077 != 0 else {
                continue
            }
            guard chmod(file, mode) == 0 else { throw StoreFileError(path: file, errno: errno) }
            narrowed.append(file)
        }
        return narrowed
    }
}

struct StoreFileError: Error, CustomStringConvertible {
    var path: String
    var errno: Int32

    var description: String {
        "cannot make \(path) private to lulld (mode 0600): \(String(cString: strerror(errno)))"
    }
}
