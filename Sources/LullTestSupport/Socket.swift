import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A bare TCP listener on 127.0.0.1 that accepts connections into its backlog and never answers:
/// the stalled server of transfer tests.
public struct Socket: Sendable {
    public let fd: CInt
    public let port: Int

    public static func listenLoopback() throws -> Socket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(fd, raw, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return Socket(fd: fd, port: Int(UInt16(bigEndian: address.sin_port)))
    }

    public func close() { Glibc.close(fd) }

    /// A TCP port on 127.0.0.1 that was free a moment ago (for servers started as processes).
    public static func freeLoopbackPort() throws -> Int {
        let socket = try listenLoopback()
        defer { socket.close() }
        return socket.port
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
