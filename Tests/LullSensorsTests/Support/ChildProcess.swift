import Foundation
import LullTestSupport

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
        var pipeFDs: [Int32] = [-1, -1]
        if lifeline {
            guard pipe(&pipeFDs) == 0 else { throw NSError(domain: "pipe", code: Int(errno)) }
            _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
        }
        defer { if lifeline { close(pipeFDs[0]) } }
        let pid: pid_t
        do {
            pid = try CleanSpawn.spawn(
                [executable] + arguments,
                environment: environment,
                input: lifeline ? .descriptor(pipeFDs[0]) : .null
            )
        } catch {
            if lifeline { close(pipeFDs[1]) }
            throw error
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
