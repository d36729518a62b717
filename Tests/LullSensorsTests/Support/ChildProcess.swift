import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A long-running child (bus daemon, mock service) started with posix_spawn and reaped with
/// waitpid, so stopping it does not depend on Foundation's run-loop-based Process monitoring.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    private var reaped = false
    private let lock = NSLock()
    /// Write end of the child's stdin when it has a lifeline; closing it (or this process
    /// dying) gives the child EOF.
    private var lifeline: Int32 = -1

    /// - Parameter lifeline: connect the child's stdin to a pipe held by this process, so a
    ///   child written to exit on EOF dies with the test process even if it is killed.
    init(_ executable: String, _ arguments: [String], environment: [String: String], lifeline: Bool = false) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeFDs: [Int32] = [-1, -1]
        if lifeline {
            guard pipe(&pipeFDs) == 0 else { throw NSError(domain: "pipe", code: Int(errno)) }
            _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[0], 0)
            posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        defer { if lifeline { close(pipeFDs[0]) } }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Threads of the test process (Dispatch workers) block signals, and a blocked mask is
        // inherited across exec: reset it, or the child would ignore SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let r = (argv + [nil]).withUnsafeBufferPointer { a in
            (envp + [nil]).withUnsafeBufferPointer { e in
                posix_spawn(
                    &pid,
                    executable,
                    &actions,
                    &attributes,
                    UnsafeMutablePointer(mutating: a.baseAddress!),
                    UnsafeMutablePointer(mutating: e.baseAddress!)
                )
            }
        }
        guard r == 0 else {
            if lifeline { close(pipeFDs[1]) }
            throw NSError(domain: "posix_spawn", code: Int(r))
        }
        self.pid = pid
        self.lifeline = pipeFDs[1]
    }

    var isRunning: Bool {
        lock.withLock {
            if reaped { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
            return !reaped
        }
    }

    /// SIGTERM, then SIGKILL after `grace`; always reaps.
    func stop(grace: TimeInterval = 3) {
        let lifeline = lock.withLock { () -> Int32 in
            defer { self.lifeline = -1 }
            return self.lifeline
        }
        guard isRunning else {
            if lifeline >= 0 { close(lifeline) }
            return
        }
        if lifeline >= 0 { close(lifeline) } else { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(grace)
        while isRunning && Date() < deadline { usleep(2_000) }
        if isRunning {
            kill(pid, SIGKILL)
            lock.withLock {
                var status: Int32 = 0
                _ = waitpid(pid, &status, 0)
                reaped = true
            }
        }
    }
}
