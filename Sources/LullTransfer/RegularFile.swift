import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// Opens a path a job names, and keeps it only if it is a regular file. A plain `open` of a
/// FIFO waits for the other end to be opened, for ever if nobody does, and a device may block
/// too; it would do so on a thread of the pool every transfer's file work shares, where neither
/// the idle nor the total timeout can reach it. So the open never waits (`O_NONBLOCK`), `fstat`
/// says what was opened, and anything else fails the job at once, for good: retrying would
/// find the same thing.
enum RegularFile {
    /// The descriptor, back in blocking mode, and what `fstat` said of it. `operation` words
    /// a failure: "cannot OPERATION PATH: …".
    static func open(_ path: String, flags: CInt, mode: mode_t = 0, operation: String) throws -> (CInt, stat) {
        let fd = Glibc.open(path, flags | O_NONBLOCK, mode)
        guard fd >= 0 else {
            let code = errno
            // A write-only open that must not wait fails this way on a FIFO nobody reads (and on
            // a socket or an absent device): say what is there rather than "no such device".
            var info = stat()
            if code == ENXIO, stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
                throw notRegular(path, operation: operation, mode: info.st_mode)
            }
            throw FileFailure(operation: operation, path: path, errno: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw FileFailure(operation: operation, path: path, errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw notRegular(path, operation: operation, mode: info.st_mode)
        }
        let status = fcntl(fd, F_GETFL)
        guard status >= 0, fcntl(fd, F_SETFL, status & ~O_NONBLOCK) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw FileFailure(operation: operation, path: path, errno: code)
        }
        return (fd, info)
    }

    private static func notRegular(_ path: String, operation: String, mode: mode_t) -> JobFailure {
        let kind =
            switch mode & S_IFMT {
            case S_IFIFO: "a FIFO"
            case S_IFDIR: "a directory"
            case S_IFCHR: "a character device"
            case S_IFBLK: "a block device"
            case S_IFSOCK: "a socket"
            default: "a special file"
            }
        return JobFailure(
            code: "file_error",
            message: "cannot \(operation) \(path): it is \(kind), not a regular file",
            retryable: false
        )
    }
}
