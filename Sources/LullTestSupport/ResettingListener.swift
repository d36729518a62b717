#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A loopback TCP listener that accepts every connection and resets it at once (`SO_LINGER` 0,
/// so the client sees `ECONNRESET` rather than a clean end): a server that crashes on contact.
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
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                Glibc.close(client)
            }
        }
        thread.start()
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting: shutting the socket down wakes the blocked `accept`.
    public func stop() {
        Glibc.shutdown(socket.fd, Int32(SHUT_RDWR))
        socket.close()
    }
}
