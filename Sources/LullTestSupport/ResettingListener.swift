import Foundation
import LullClient

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP listener that accepts every connection, reads the request and
/// resets it (`SO_LINGER` 0, so the client sees `ECONNRESET` rather than a clean end): a server
/// that crashes on a request. Resetting only once the request has arrived keeps it a reset for
/// the client: a reset that beat the request's write would fail that write, and an HTTP client
/// reports that as the connection closed.
public final class ResettingListener: @unchecked Sendable {
    private let socket: Socket
    public var port: Int { socket.port }

    public init() throws {
        socket = try Socket.listenLoopback()
        let fd = socket.fd
        let thread = Thread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    return  // the listener was shut down
                }
                // The whole request, or 2 s of nothing (a client that only connects).
                var wait = timeval(tv_sec: 2, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                Self.readRequest(client)
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                Glibc.close(client)
            }
        }
        thread.start()
    }

    /// Reads until a request's head and its `Content-Length` body have arrived, the client stops
    /// sending, or 64 KiB were read.
    private static func readRequest(_ fd: CInt) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.count < 64 << 10 {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            received += chunk[..<count]
            if let length = HTTPFraming.messageLength(in: received), received.count >= length { return }
        }
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting: shutting the socket down wakes the blocked `accept`.
    public func stop() {
        Glibc.shutdown(socket.fd, Int32(SHUT_RDWR))
        socket.close()
    }
}
