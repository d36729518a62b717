#if canImport(Glibc)
import Glibc
#endif

/// Where a command's output goes as it is read from its pipe: the capped log, the tail the
/// result keeps and, when given, a line sink. Shared by the process host's supervisor and the
/// systemd host's pump; used by one thread.
struct OutputCopy {
    var log: RunLogFile
    var tail: OutputTail
    var lines: LineSplitter?
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)

    init(log: RunLogFile, tail: OutputTail, lines: LineSplitter? = nil) {
        self.log = log
        self.tail = tail
        self.lines = lines
    }

    /// Reads what `descriptor` has and passes it on; false once the pipe is at its end (or
    /// failed), true when more may come.
    mutating func read(from descriptor: Int32) -> Bool {
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            buffer.withUnsafeBytes { bytes in
                let chunk = UnsafeRawBufferPointer(rebasing: bytes.prefix(count))
                log.append(chunk)
                tail.append(chunk)
                lines?.append(chunk)
            }
            return true
        }
        return count < 0 && (errno == EINTR || errno == EAGAIN)
    }

    /// Closes the log and returns the tail; a last line without its newline goes to the sink.
    mutating func finish() -> String {
        lines?.flush()
        log.close()
        return tail.text
    }
}
