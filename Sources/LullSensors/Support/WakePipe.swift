import CLullSys

#if canImport(Glibc)
import Glibc
#endif

/// A self-pipe that lets another thread wake a thread sleeping in `poll(2)`.
/// (`eventfd` is not exported by the Glibc module; a non-blocking pipe does the same job.)
struct WakePipe: Sendable {
    let readFD: Int32
    let writeFD: Int32

    init() throws(SensorError) {
        var fds: [Int32] = [-1, -1]
        // Close-on-exec from the start (pipe2): a command forked meanwhile must not inherit it.
        guard lull_pipe(&fds, 1) == 0 else { throw SensorError.system("pipe2", errno) }
        readFD = fds[0]
        writeFD = fds[1]
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }

    func close() {
        _ = Glibc.close(readFD)
        _ = Glibc.close(writeFD)
    }
}

/// A failure of a sensor's system call or setup.
public enum SensorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed with this errno.
    case system(String, Int32)
    /// The source was asked to do something in a state that does not allow it.
    case notStarted(String)

    public var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .notStarted(let what): "\(what) is not started"
        }
    }
}
