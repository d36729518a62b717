#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import NIOPosix

/// The file a download is written to before it is verified and renamed into place. It lives
/// beside the destination so the final rename is atomic on the same filesystem. All blocking
/// file calls run on NIO's thread pool, never on an event loop or the cooperative pool.
final class StagingFile: Sendable {
    let path: String
    let destination: String
    private let descriptor: CInt
    private let pool: NIOThreadPool

    /// The staging path used for `destination` by the job with this id.
    static func path(for destination: String, jobID: Int64) -> String {
        let url = URL(fileURLWithPath: destination)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lull-\(jobID).part").path
    }

    /// Creates (truncating) the staging file. The final component is never followed through a symlink.
    static func create(for destination: String, jobID: Int64, pool: NIOThreadPool = .singleton) async throws -> StagingFile {
        let path = Self.path(for: destination, jobID: jobID)
        let descriptor = try await pool.runIfActive {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw FileFailure(operation: "create", path: path, errno: errno) }
            return fd
        }
        return StagingFile(path: path, destination: destination, descriptor: descriptor, pool: pool)
    }

    private init(path: String, destination: String, descriptor: CInt, pool: NIOThreadPool) {
        self.path = path
        self.destination = destination
        self.descriptor = descriptor
        self.pool = pool
    }

    func append(_ buffer: ByteBuffer) async throws {
        let fd = descriptor
        let path = self.path
        try await pool.runIfActive {
            try buffer.withUnsafeReadableBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw FileFailure(operation: "write", path: path, errno: errno)
                    }
                    offset += written
                }
            }
        }
    }

    /// Flushes the data to disk, closes the file and renames it over the destination, then
    /// flushes the directory so the rename itself survives a power cut.
    func commit() async throws {
        let fd = descriptor
        let path = self.path
        let destination = self.destination
        try await pool.runIfActive {
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw FileFailure(operation: "fsync", path: path, errno: errno) }
            guard rename(path, destination) == 0 else {
                throw FileFailure(operation: "rename to \(destination)", path: path, errno: errno)
            }
            let directory = URL(fileURLWithPath: destination).deletingLastPathComponent().path
            let dirfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if dirfd >= 0 {
                _ = fsync(dirfd)
                close(dirfd)
            }
        }
    }

    /// Closes the file and removes it: the attempt is abandoned.
    func discard() async {
        let fd = descriptor
        let path = self.path
        _ = try? await pool.runIfActive {
            close(fd)
            unlink(path)
        }
    }
}

/// A file operation that failed, with the path and the system's reason.
struct FileFailure: Error, CustomStringConvertible {
    var operation: String
    var path: String
    var errno: CInt

    var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
}
