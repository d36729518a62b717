import CLullSys
import Crypto
import Foundation
import LullCore
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// The file a download is written to before it is verified and renamed into place. It lives
/// beside the destination so the final rename is atomic on the same filesystem, and it is kept
/// across attempts and restarts so a download resumes instead of starting over. It is created
/// with the owner's rights and never through a symlink.
final class StagingFile: Sendable {
    let path: String
    let destination: String
    let owner: OwnerID
    private let descriptor: CInt
    /// The filesystem the file is on (its `st_dev`), for sharing its sync.
    private let device: UInt64
    private let files: FileAccess

    /// The staging path used for `destination` by the job with this id.
    static func path(for destination: String, jobID: Int64) -> String {
        let directory = PathText.directory(of: destination)
        return (directory == "/" ? "" : directory) + "/.\(PathText.name(of: destination)).lull-\(jobID).part"
    }

    /// Opens the staging file, creating it if needed, and cuts it to `keep` bytes (0 to start over).
    /// Returns the file, its length after the cut (less than `keep` if less was on disk), the
    /// identity of what is at the destination already (a file a conditional GET may keep; nil
    /// when nothing is) and the bytes
    /// free on its filesystem for unprivileged users (nil if unknown), read in the same trip to
    /// the thread pool.
    /// With a `mode` the file is private while partial and gets the mode in `commit`; without
    /// (a job stored before modes existed) it is created 0644 less the daemon's umask, as then.
    static func open(
        for destination: String,
        jobID: Int64,
        owner: OwnerID,
        keep: Int64,
        mode: FileMode?,
        files: FileAccess
    ) async throws -> (StagingFile, Int64, destination: String?, freeBytes: Int64?) {
        let path = Self.path(for: destination, jobID: jobID)
        let opened = try await files.run(as: owner) { () -> Opened in
            // A directory there would otherwise be found only by the rename, after the download.
            var existing = stat()
            let exists = lstat(destination, &existing) == 0
            if exists, existing.st_mode & S_IFMT == S_IFDIR {
                throw FileFailure(operation: "write the download to", path: destination, errno: EISDIR)
            }
            let (fd, info) = try RegularFile.open(
                path,
                flags: O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                mode: mode == nil ? 0o644 : 0o600,
                operation: "create"
            )
            // A file kept from an earlier attempt or version may have been made 0644; a new one is 0600.
            if mode != nil, info.st_mode & 0o7777 != 0o600 { _ = fchmod(fd, 0o600) }
            let length = min(Int64(info.st_size), max(keep, 0))
            guard ftruncate(fd, off_t(length)) == 0, lseek(fd, off_t(length), SEEK_SET) >= 0 else {
                let code = errno
                Glibc.close(fd)
                throw FileFailure(operation: "truncate", path: path, errno: code)
            }
            var filesystem = statvfs()
            let free = fstatvfs(fd, &filesystem) == 0 ? Int64(filesystem.f_bavail) * Int64(filesystem.f_frsize) : nil
            return Opened(
                descriptor: fd,
                device: UInt64(info.st_dev),
                length: length,
                destination: exists ? FileIdentity.text(of: existing) : nil,
                freeBytes: free
            )
        }
        let staging = StagingFile(
            path: path,
            destination: destination,
            owner: owner,
            descriptor: opened.descriptor,
            device: opened.device,
            files: files
        )
        return (staging, opened.length, opened.destination, opened.freeBytes)
    }

    /// What the trip to the thread pool in `open` found.
    private struct Opened: Sendable {
        let descriptor: CInt
        let device: UInt64
        let length: Int64
        let destination: String?
        let freeBytes: Int64?
    }

    private init(
        path: String,
        destination: String,
        owner: OwnerID,
        descriptor: CInt,
        device: UInt64,
        files: FileAccess
    ) {
        self.path = path
        self.destination = destination
        self.owner = owner
        self.descriptor = descriptor
        self.device = device
        self.files = files
    }

    /// Writes `buffer` at the end of the file and feeds it to `digest`, both on the thread pool
    /// (the event loop keeps receiving meanwhile), then starts writing it back to disk so the
    /// final fsync is short.
    func append(_ buffer: ByteBuffer, digest: RunningDigest) async throws {
        let fd = descriptor
        let path = self.path
        try await files.pool.runIfActive {
            try buffer.withUnsafeReadableBytes { bytes in
                digest.update(bytes)
                let start = lseek(fd, 0, SEEK_CUR)
                var offset = 0
                while offset < bytes.count {
                    let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw FileFailure(operation: "write", path: path, errno: errno)
                    }
                    offset += written
                }
                if start >= 0 { _ = lull_start_writeback(fd, Int64(start), Int64(bytes.count)) }
            }
        }
    }

    /// Empties the file to start the download over.
    func restart() async throws {
        let fd = descriptor
        let path = self.path
        try await files.pool.runIfActive {
            guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
                throw FileFailure(operation: "truncate", path: path, errno: errno)
            }
        }
    }

    /// Makes everything written so far durable, so it can be resumed from after a crash.
    func flush() async throws {
        let fd = descriptor
        let path = self.path
        try await files.pool.runIfActive {
            guard fdatasync(fd) == 0 else { throw FileFailure(operation: "fdatasync", path: path, errno: errno) }
        }
    }

    /// SHA-256 state over the first `length` bytes already on disk (before resuming), with
    /// `read` called after each MiB. The file is opened once, as the owner; the reads need no
    /// identity, and each is a visit of its own to the pool, so a prefix of gigabytes does not
    /// hold a pool thread. The caller's `read` keeps its idle watchdog from taking the hashing
    /// of a long prefix, which runs after the request was sent, for a stalled server.
    func hashPrefix(_ length: Int64, read: @escaping @Sendable () -> Void = {}) async throws -> SHA256 {
        let path = self.path
        let fd = try await files.run(as: owner) {
            try RegularFile.open(path, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, operation: "read").0
        }
        defer { Glibc.close(fd) }
        var hasher = SHA256()
        var position: Int64 = 0
        while position < length {
            let start = position
            let count = Int(Swift.min(Int64(1 << 20), length - position))
            let chunk = try await files.pool.runIfActive { () -> [UInt8] in
                var buffer = [UInt8](repeating: 0, count: count)
                let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(start)) }
                guard got == count else {
                    throw FileFailure(operation: "read", path: path, errno: got < 0 ? errno : EIO)
                }
                return buffer
            }
            hasher.update(data: chunk)
            position += Int64(count)
            read()
        }
        return hasher
    }

    /// Gives the file its mode and makes its data durable (a sync shared with the files that
    /// finish meanwhile, which closes the file: `FileSyncs`), then renames it over the
    /// destination and flushes the directory (an fsync shared with the files renamed into it
    /// meanwhile: `DirectorySyncs`). Two visits to the thread pool, each possibly shared.
    func commit(mode: FileMode?) async throws {
        // Set, not left to the umask: the daemon's own (0077 under its unit) is not the owner's.
        try await files.fileSyncs.syncAndClose(
            descriptor,
            path: path,
            mode: mode,
            device: device,
            owner: owner,
            files: files
        )
        try await files.directorySyncs.rename(
            path,
            to: destination,
            in: PathText.directory(of: destination),
            as: owner,
            files: files
        )
    }

    /// The identity the file will have at the destination, read once nothing more is written.
    func identity() async -> String? {
        let fd = descriptor
        return try? await files.pool.runIfActive { () -> String? in
            var info = stat()
            return fstat(fd, &info) == 0 ? FileIdentity.text(of: info) : nil
        }
    }

    /// Closes the file, keeping it for a later attempt.
    func close() async {
        let fd = descriptor
        _ = try? await files.pool.runIfActive { Glibc.close(fd) }
    }

    /// Closes the file and removes it: the download starts over next time.
    func discard() async {
        let fd = descriptor
        let path = self.path
        _ = try? await files.run(as: owner) {
            Glibc.close(fd)
            unlink(path)
        }
    }
}

/// A SHA-256 in progress, updated by one transfer's writes in turn (never concurrently).
final class RunningDigest: @unchecked Sendable {
    private var hasher: SHA256

    init(_ hasher: SHA256 = SHA256()) { self.hasher = hasher }

    func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bufferPointer: bytes) }

    func hex() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in hasher.finalize() {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
