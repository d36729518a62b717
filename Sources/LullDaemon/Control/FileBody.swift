import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// A range of an open file that an answer sends as its body, read a chunk at a time on the
/// thread pool as the client takes it, so a large file costs the daemon a chunk, not its size.
/// The descriptor closes with the last reference, whichever path the answer takes.
final class FileBody: Sendable {
    static let chunkBytes = 256 << 10

    private let descriptor: CInt
    let offset: Int64
    let length: Int64

    /// Takes ownership of `descriptor`.
    init(descriptor: CInt, offset: Int64, length: Int64) {
        self.descriptor = descriptor
        self.offset = offset
        self.length = length
    }

    deinit {
        close(descriptor)
    }

    /// Up to `chunkBytes` from `position` (relative to `offset`); fewer, or none, when the file
    /// has shrunk meanwhile.
    func chunk(at position: Int64, pool: NIOThreadPool = .singleton) async throws -> ByteBuffer {
        let count = Int(min(Int64(Self.chunkBytes), length - position))
        guard count > 0 else { return ByteBuffer() }
        return try await pool.runIfActive { [descriptor, offset] in
            var buffer = ByteBufferAllocator().buffer(capacity: count)
            _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
                max(0, pread(descriptor, bytes.baseAddress, count, off_t(offset + position)))
            }
            return buffer
        }
    }
}
