import CLullSys
import Foundation
import LullCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Every file a job touches is opened with the rights of the job's owner, never the daemon's:
/// when the daemon can switch identities (root, or the system unit's `lull` user with just
/// CAP_SETUID and CAP_SETGID) the blocking call runs on a pool thread that takes on the owner's
/// filesystem identity for its duration. The daemon can therefore never be used to read or
/// write a file its client could not (no confused deputy).
public struct FileAccess: Sendable {
    let pool: NIOThreadPool
    /// When non-empty, destinations must lie under one of these directories (after resolving symlinks).
    public let allowedDirectories: [String]

    /// Whether this process may take on other users' filesystem identities (checked once).
    let canSwitchIdentity: Bool
    /// Directory fsyncs shared among the downloads renamed into the same directory.
    package let directorySyncs = DirectorySyncs()
    /// File syncs shared among the downloads that finish at about the same time.
    package let fileSyncs = FileSyncs()

    public init(pool: NIOThreadPool = .singleton, allowedDirectories: [String] = []) {
        self.pool = pool
        self.allowedDirectories = allowedDirectories.map { URL(fileURLWithPath: $0).standardized.path }
        self.canSwitchIdentity = lull_can_switch_fs_user() != 0
    }

    /// Runs blocking file work off the event loops, as `owner`.
    func run<T: Sendable>(as owner: OwnerID, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let canSwitch = canSwitchIdentity
        return try await pool.runIfActive { try Self.asOwner(owner.rawValue, switching: canSwitch, body) }
    }

    /// Runs `body` on the calling thread with `owner`'s filesystem identity (uid, gid and
    /// groups; root's file capabilities go with a non-zero fsuid), then takes the daemon's back.
    /// `switching` false, or `owner` being the daemon's uid, runs it as the daemon.
    package static func asOwner<T>(_ owner: UInt32, switching: Bool, _ body: () throws -> T) throws -> T {
        // Without the rights to switch, another uid's file work would run with lulld's rights:
        // the confused deputy this type exists to prevent.
        guard switching || owner == geteuid() else {
            throw JobFailure(
                code: "permission_denied",
                message: "lulld runs as uid \(geteuid()) without CAP_SETUID and CAP_SETGID, so it cannot touch files "
                    + "as uid \(owner); that user's jobs belong to the system unit or to their own user instance",
                retryable: false
            )
        }
        let switched = switching && owner != geteuid()
        if switched, lull_become_fs_user(owner) != 0 {
            let code = errno
            _ = lull_restore_fs_user()
            throw FileFailure(
                operation: "take on the identity of uid \(owner) for",
                path: "",
                errno: code,
                identity: true
            )
        }
        defer { if switched { _ = lull_restore_fs_user() } }
        return try body()
    }

    /// Refuses destinations outside the admin's allowed directories.
    func checkAllowed(_ destination: String, owner: OwnerID) async throws {
        guard !allowedDirectories.isEmpty else { return }
        let allowed = allowedDirectories
        let directory = PathText.directory(of: destination)
        let resolved = try await run(as: owner) { () -> String in
            guard let real = realpath(directory, nil) else {
                throw FileFailure(operation: "resolve", path: directory, errno: errno)
            }
            defer { free(real) }
            return String(cString: real)
        }
        guard allowed.contains(where: { resolved == $0 || resolved.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") })
        else {
            throw JobFailure(
                code: "destination_not_allowed",
                message:
                    "\(destination) is outside the directories the admin allows (transfers.allowed_directories: \(allowed.joined(separator: ", ")))",
                retryable: false
            )
        }
    }

    /// Free bytes on the filesystem holding `directory`, for the owner.
    func freeBytes(in directory: String, owner: OwnerID) async throws -> Int64 {
        try await run(as: owner) {
            var info = statvfs()
            guard statvfs(directory, &info) == 0 else {
                throw FileFailure(operation: "statvfs", path: directory, errno: errno)
            }
            return Int64(info.f_bavail) * Int64(info.f_frsize)
        }
    }

    func fileSize(_ path: String, owner: OwnerID) async throws -> Int64? {
        try await run(as: owner) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            return Int64(info.st_size)
        }
    }
}

/// A file operation that failed, with the path and the system's reason.
public struct FileFailure: Error, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: CInt
    /// The owner's identity could not be taken on (the password database answered an error,
    /// say): nothing about the file, and worth trying again.
    public var identity = false

    public var description: String { "cannot \(operation) \(path): \(String(cString: strerror(errno)))" }

    /// The job failure this file problem means.
    var jobFailure: JobFailure {
        if identity { return JobFailure(code: "account_unavailable", message: description, retryable: true) }
        return switch errno {
        case EACCES, EPERM:
            JobFailure(code: "permission_denied", message: description, retryable: false)
        case ENOSPC, EDQUOT:
            JobFailure(code: "no_space", message: description, retryable: true)
        case ELOOP:
            JobFailure(
                code: "symlink_refused",
                message: description + " (a symlink is never followed here)",
                retryable: false
            )
        case ENOENT, ENOTDIR:
            JobFailure(code: "no_such_file", message: description, retryable: false)
        case EISDIR:
            JobFailure(code: "file_error", message: description + "; give a path to a file inside it", retryable: false)
        case EROFS:
            JobFailure(code: "file_error", message: readOnlyAdvice, retryable: false)
        case EMFILE, ENFILE, ENOMEM, EAGAIN, EINTR:
            // The daemon's or the system's resources, not the file: they come back.
            JobFailure(code: "file_error", message: description, retryable: true)
        default:
            JobFailure(code: "file_error", message: description, retryable: false)
        }
    }

    /// The system unit's `ProtectSystem=strict` makes everything outside its `ReadWritePaths=`
    /// read-only for lulld, even where the owner may write: the fix is the admin's drop-in.
    var readOnlyAdvice: String {
        "\(description): \(directory) is read-only for lulld; under the system unit an administrator makes it "
            + "writable with a drop-in (systemctl edit lulld: [Service] ReadWritePaths=\(directory)); then submit the job again"
    }

    /// The directory to name in `ReadWritePaths=`: the file's. From the path alone: this is
    /// worded on whatever thread the failure reaches, with the daemon's identity, not the owner's.
    var directory: String {
        PathText.directory(of: path)
    }
}
