import Foundation
import LullAPI

#if canImport(Glibc)
import Glibc
#endif

/// Makes sure only one daemon uses a state directory and a socket.
/// The lock file is held with flock for the life of the process, so a crash releases it.
final class InstanceLock {
    private let descriptor: CInt

    init(stateDirectory: String) throws(StartupError) {
        let path = stateDirectory + "/lulld.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StartupError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw StartupError(
                "another lulld is already running with state directory \(stateDirectory); stop it first (lullctl status shows it)"
            )
        }
        descriptor = fd
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { write(fd, $0, strlen($0)) }
    }

    deinit { close(descriptor) }

    /// Refuses a socket another live daemon answers on; removes one left behind by a crash.
    static func claimSocket(at path: String) throws(StartupError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw StartupError("\(path) exists and is not a socket; remove it or choose another socket path")
        }
        if Self.somebodyListens(on: path) {
            throw StartupError("another lulld is already listening on \(path); stop it first or use --socket")
        }
        unlink(path)
    }

    private static func somebodyListens(on path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.utf8CString.withUnsafeBytes { source in
                raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(capacity - 1)))
            }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }
}

/// The daemon could not start; the message says why and what to do.
public struct StartupError: Error, CustomStringConvertible {
    public var description: String
    /// `.refused` when a restart cannot help until an admin acts (the units do not restart on it).
    public var exitStatus: LulldExitStatus
    public init(_ description: String, exitStatus: LulldExitStatus = .failure) {
        self.description = description
        self.exitStatus = exitStatus
    }
}
