import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts a program with `posix_spawn` as a shell would: no signal blocked and the common ones
/// at their defaults. A test's threads (Dispatch workers, the xctest runner) block signals, and a
/// blocked mask or an ignored signal passes to a child across `exec`: such a child would not end
/// at SIGTERM or SIGINT. Foundation's `Process` does not reset them.
public enum CleanSpawn {
    /// Where a standard descriptor of the child comes from.
    public enum Source: Sendable {
        case null
        /// A file, created or truncated, for output.
        case file(String)
        /// One of this process's descriptors, duplicated onto the child's and closed there.
        case descriptor(CInt)
    }

    /// The child's pid. `processGroup`: the leader of a group of its own, as a shell's job.
    public static func spawn(
        _ argv: [String],
        environment: [String: String],
        input: Source = .null,
        output: Source = .null,
        processGroup: Bool = false
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in [(CInt(0), input), (1, output)] {
            switch source {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .descriptor(let fd):
                posix_spawn_file_actions_adddup2(&actions, fd, target)
                posix_spawn_file_actions_addclose(&actions, fd)
            }
        }
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if processGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        return pid
    }
}
