import Foundation
import LullClient

/// A raw stream connection to a Unix socket, for tests that must send bytes no HTTP client would
/// (garbage, half a request, a header of a megabyte) and see exactly what comes back.
public final class UnixSocketConnection: @unchecked Sendable {
    private let stream: UnixSocketStream

    public init(path: String) throws {
        stream = try UnixSocketStream(connectingTo: path)
    }

    /// Sends everything it can; returns false once the peer has closed (never raises SIGPIPE).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        do {
            try stream.send(bytes)
            return true
        } catch {
            return false
        }
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the peer closes or nothing arrives for `timeout`; returns what came.
    public func receive(timeout: Duration) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + timeout
        while stream.readable(within: deadline - ContinuousClock.now) {
            // A reset is the peer closing too, as far as these tests care.
            guard let count = try? stream.receive(into: &buffer), count > 0 else { return (received, true) }
            received += buffer[..<count]
        }
        return (received, false)
    }

    /// Waits up to `timeout` for bytes and returns what one read gives (nothing on a timeout or
    /// a close): the start of an answer, leaving the rest unread.
    public func receiveSome(timeout: Duration) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        guard stream.readable(within: timeout), let count = try? stream.receive(into: &buffer), count > 0 else {
            return []
        }
        return Array(buffer[..<count])
    }

    /// The status code of the first HTTP response in `bytes`, if there is one.
    public static func status(of bytes: [UInt8]) -> Int? { HTTPFraming.status(of: bytes) }

    /// Says "no more bytes" while still reading the answer.
    public func shutdownWriting() { stream.shutdownWriting() }

    public func close() { stream.close() }
}
