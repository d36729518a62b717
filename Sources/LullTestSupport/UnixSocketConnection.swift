#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A raw stream connection to a Unix socket, for tests that must send bytes no HTTP client would
/// (garbage, half a request, a header of a megabyte) and see exactly what comes back.
public final class UnixSocketConnection: @unchecked Sendable {
    private let fd: CInt

    public init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = unixAddress(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
    }

    /// Sends everything it can; returns false once the peer has closed (never raises SIGPIPE).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the peer closes or nothing arrives for `timeout`; returns what came.
    public func receive(timeout: Duration) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return (received, false) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, LatencySummary.milliseconds(left))))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return (received, false) }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return (received, true) }
            received += buffer[..<count]
        }
    }

    /// The status code of the first HTTP response in `bytes`, if there is one.
    public static func status(of bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        guard text.hasPrefix("HTTP/1."), text.count >= 12 else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }

    /// Says "no more bytes" while still reading the answer.
    public func shutdownWriting() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    public func close() { Glibc.close(fd) }
}
