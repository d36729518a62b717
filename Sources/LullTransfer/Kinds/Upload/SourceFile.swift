import Foundation
import LullCore
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An upload's source, opened once with the owner's rights. Its size and modification time are
/// taken at the start; a file that changes while it is being sent fails the job.
final class SourceFile: Sendable {
    let path: String
    let size: Int64
    let modified: Double
    private let descriptor: CInt
    private let files: FileAccess
    /// Reads started ahead of their reader. An upload that fails or is cancelled leaves one
    /// behind; `close` waits for them so none preads a descriptor that is closed or reused.
    private let readsAhead = Mutex(ReadsAhead())

    private struct ReadsAhead {
        var nextID = 0
        var tasks: [Int: Task<ByteBuffer, any Error>] = [:]
        var closed = false
    }

    static func open(_ path: String, owner: OwnerID, files: FileAccess) async throws -> SourceFile {
        let (fd, size, modified) = try await files.run(as: owner) { () -> (CInt, Int64, Double) in
            // A symlink is followed: the owner may name a file through one, and reads it with
            // their own rights either way.
            let (fd, info) = try RegularFile.open(path, flags: O_RDONLY | O_CLOEXEC, operation: "upload")
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            return (fd, Int64(info.st_size), modified)
        }
        return SourceFile(path: path, size: size, modified: modified, descriptor: fd, files: files)
    }

    private init(path: String, size: Int64, modified: Double, descriptor: CInt, files: FileAccess) {
        self.path = path
        self.size = size
        self.modified = modified
        self.descriptor = descriptor
        self.files = files
    }

    /// Fails when the file is no longer what the upload started with.
    func checkUnchanged(against resume: ResumeState? = nil) async throws {
        let fd = descriptor
        let (size, modified) = try await files.pool.runIfActive { () -> (Int64, Double) in
            var info = stat()
            fstat(fd, &info)
            return (Int64(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        }
        let expectedSize = resume?.sourceSize ?? self.size
        let expectedModified = resume?.sourceModified ?? self.modified
        if size != expectedSize || modified != expectedModified {
            throw JobFailure(
                code: "source_changed",
                message: "\(path) changed during the upload (size \(expectedSize) → \(size)); submit the upload again",
                retryable: false
            )
        }
    }

    func read(at offset: Int64, count: Int) async throws -> ByteBuffer {
        let fd = descriptor
        let path = self.path
        return try await files.pool.runIfActive {
            var buffer = ByteBuffer()
            let got = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                let n = pread(fd, raw.baseAddress, count, off_t(offset))
                guard n >= 0 else { throw FileFailure(operation: "read", path: path, errno: errno) }
                return n
            }
            _ = got
            return buffer
        }
    }

    /// The bytes from `offset` up to `end` (the end of the file when nil), in chunks, reporting
    /// progress (the position in the file) as they are handed on.
    func chunks(
        from offset: Int64,
        to end: Int64? = nil,
        chunkSize: Int = 1 << 20,
        onChunk: @escaping @Sendable (Int64) -> Void
    ) -> FileChunks {
        FileChunks(file: self, start: offset, end: Swift.min(end ?? size, size), chunkSize: chunkSize, onChunk: onChunk)
    }

    /// Starts reading `count` bytes at `offset` now, for the caller to await later.
    func readAhead(at offset: Int64, count: Int) -> Task<ByteBuffer, any Error> {
        readsAhead.withLock { state in
            guard !state.closed else {
                return Task { throw FileFailure(operation: "read (file closed)", path: path, errno: EBADF) }
            }
            let id = state.nextID
            state.nextID += 1
            let task = Task {
                defer { self.readsAhead.withLock { _ = $0.tasks.removeValue(forKey: id) } }
                return try await self.read(at: offset, count: count)
            }
            state.tasks[id] = task
            return task
        }
    }

    /// Reads started ahead and not finished yet.
    var pendingReads: Int { readsAhead.withLock { $0.tasks.count } }

    func close() async {
        let pending = readsAhead.withLock { state in
            state.closed = true
            return Array(state.tasks.values)
        }
        for read in pending { _ = try? await read.value }
        let fd = descriptor
        _ = try? await files.pool.runIfActive { Glibc.close(fd) }
    }
}

/// A source file's bytes as an async sequence of buffers, read on the thread pool one chunk
/// ahead: while the network takes one chunk the next is already being read, so the disk and
/// the socket work at the same time.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let file: SourceFile
    let start: Int64
    let end: Int64
    let chunkSize: Int
    let onChunk: @Sendable (Int64) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: FileChunks
        var position: Int64
        /// The read of the chunk at `position`, already under way.
        var ahead: Task<ByteBuffer, any Error>?

        mutating func next() async throws -> ByteBuffer? {
            guard position < chunks.end else { return nil }
            let read = ahead ?? chunks.read(at: position)
            ahead = nil
            let buffer = try await read.value
            guard buffer.readableBytes > 0 else {
                throw JobFailure(
                    code: "source_changed",
                    message: "\(chunks.file.path) became shorter during the upload",
                    retryable: false
                )
            }
            position += Int64(buffer.readableBytes)
            if position < chunks.end { ahead = chunks.read(at: position) }
            chunks.onChunk(position)
            return buffer
        }
    }

    private func read(at offset: Int64) -> Task<ByteBuffer, any Error> {
        file.readAhead(at: offset, count: Int(Swift.min(Int64(chunkSize), end - offset)))
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self, position: start) }
}
