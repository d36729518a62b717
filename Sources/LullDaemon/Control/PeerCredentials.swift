import LullCore
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Who is on the other end of a control connection, as the kernel vouches (`SO_PEERCRED`).
struct PeerCredentials: Sendable, Equatable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    var owner: OwnerID { OwnerID(uid) }
    /// Root sees and acts on every owner's jobs.
    var isAdmin: Bool { uid == 0 }

    /// Reads the credentials of a connected Unix-socket channel.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(PeerCredentialsUnavailable())
        }
        let future: EventLoopFuture<KernelCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}

/// Linux's `struct ucred`, which Glibc only declares under _GNU_SOURCE: three 32-bit fields.
private struct KernelCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

struct PeerCredentialsUnavailable: Error, CustomStringConvertible {
    var description: String { "the control socket did not report its peer's credentials" }
}
