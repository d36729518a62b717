#if canImport(Glibc)
import Glibc
#endif

/// A connected stream socket on a Unix socket path, with plain blocking reads and writes and no
/// event loop: what `BlockingSocketExchange`, the benchmark's load generator and the tests' raw
/// connections share. `package`, not `public`: a tool of this package, not the library's API.
package final class UnixSocketStream {
    package let path: String
    private var fd: CInt

    /// Connects to `path`. With a `timeout`, a read or a write that waits longer fails with
    /// `UnixSocketError.timedOut`.
    package init(connectingTo path: String, timeout: Duration? = nil) throws(UnixSocketError) {
        self.path = path
        var address = try Self.address(path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        if let timeout {
            var limit = timeval(
                tv_sec: Int(timeout.components.seconds),
                tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000)
            )
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close()
            throw .system(call: "connect", errno: code)
        }
    }

    deinit { close() }

    /// A `sockaddr_un` for `path`; a path too long for one is refused rather than cut short,
    /// which would name another file.
    package static func address(_ path: String) throws(UnixSocketError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .pathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return address
    }

    /// Writes every byte. `MSG_NOSIGNAL`: a peer that has gone is an error here, not a SIGPIPE
    /// that ends the process.
    package func send(_ bytes: [UInt8]) throws(UnixSocketError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw Self.failure("send") }
            offset += sent
        }
    }

    /// Reads what has arrived (waiting for at least one byte) into `buffer`; returns the count,
    /// 0 once the peer has closed.
    package func receive(into buffer: inout [UInt8]) throws(UnixSocketError) -> Int {
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw Self.failure("read") }
        }
    }

    /// Whether a read would not wait (bytes or the peer's close have arrived) within `timeout`.
    package func readable(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = max(
                0,
                left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            )
            let ready = poll(&poller, 1, Int32(clamping: milliseconds))
            if ready < 0 && errno == EINTR && left > .zero { continue }
            return ready > 0
        }
    }

    /// Says "no more bytes" while still reading the answer.
    package func shutdownWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// Closes the connection; later calls fail with `EBADF`.
    package func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// A failed call; a send or read timeout (`SO_SNDTIMEO`, `SO_RCVTIMEO`) shows as `EAGAIN`.
    private static func failure(_ call: String) -> UnixSocketError {
        errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .system(call: call, errno: errno)
    }
}

/// Why a `UnixSocketStream` call failed.
package enum UnixSocketError: Error, Equatable, CustomStringConvertible {
    case system(call: String, errno: Int32)
    case pathTooLong(String)
    case timedOut

    package var description: String {
        switch self {
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .pathTooLong(let path):
            "the socket path \(path) is longer than a Unix socket address allows; use a shorter one"
        case .timedOut: "no answer in time"
        }
    }

    /// The peer had closed the connection (a daemon that drops idle keep-alive connections).
    package var peerClosed: Bool {
        if case .system(_, let code) = self { return code == EPIPE || code == ECONNRESET }
        return false
    }
}
