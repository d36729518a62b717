import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// One attempt's log file, which keeps at most `limit` bytes: once a write would pass the limit,
/// the file is rewritten with its newest half and goes on from there. Each byte is thus copied
/// at most once more, and the file always ends with the latest output. Used by one thread only.
///
/// The file is made on the first output: a command that prints nothing costs no file (a missing
/// log reads as empty).
struct RunLogFile {
    let path: String
    let limit: Int64
    /// -1 until the first output makes the file; `unopenable` once that failed.
    private var descriptor: Int32
    private static let unopenable: Int32 = -2
    private(set) var size: Int64 = 0

    /// Empties an earlier attempt's log (an attempt starts from the beginning, and so does its log).
    init(path: String, limit: Int64) throws(JobFailure) {
        self.path = path
        self.limit = limit
        let directory = PathText.directory(of: path)
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw Self.failure("cannot create the log directory \(directory)")
        }
        descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 || errno == ENOENT else { throw Self.failure("cannot open the log \(path)") }
        // The file is made later; a directory it cannot be made in fails the attempt now.
        if descriptor < 0, access(directory, W_OK | X_OK) != 0 {
            throw Self.failure("cannot write the log directory \(directory)")
        }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard limit > 0, !bytes.isEmpty else { return }
        if descriptor == -1 {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
            // As with a full disk, the output is lost, not the job; and not tried again.
            if descriptor < 0 { descriptor = Self.unopenable }
        }
        guard descriptor >= 0 else { return }
        var chunk = bytes
        if Int64(chunk.count) > limit {
            chunk = UnsafeRawBufferPointer(rebasing: chunk.suffix(Int(limit)))
            truncate(keeping: 0)
        } else if size + Int64(chunk.count) > limit {
            truncate(keeping: Swift.min(limit / 2, limit - Int64(chunk.count)))
        }
        writeAll(chunk)
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Keeps the newest `keep` bytes: written to a new file renamed over the log, so a reader
    /// sees the old file or the new one, never half of either.
    private mutating func truncate(keeping keep: Int64) {
        let kept = Swift.min(keep, size)
        var tail = [UInt8](repeating: 0, count: Int(kept))
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        if reader >= 0 {
            _ = tail.withUnsafeMutableBytes { pread(reader, $0.baseAddress, $0.count, off_t(size - kept)) }
            Glibc.close(reader)
        }
        let temporary = path + ".new"
        let replacement = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard replacement >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = replacement
        size = 0
        tail.withUnsafeBytes { writeAll($0) }
        rename(temporary, path)
    }

    private mutating func writeAll(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return  // a full disk loses log output, not the job
            }
            offset += written
        }
        size += Int64(offset)
    }

    private static func failure(_ what: String) -> JobFailure {
        JobFailure(code: "file_error", message: "\(what): \(String(cString: strerror(errno)))", retryable: true)
    }
}
