import CLullSys
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Watches one run job's process from a thread of its own, never an event loop or the
/// cooperative pool: it copies the output pipe into the log and the tail, stops the process
/// group when asked (SIGTERM, then SIGKILL after the grace) or when the attempt's time is up,
/// and reaps the process with `wait4` for its status and rusage. It sleeps in `poll(2)` on the
/// pipe, a pidfd (readable once the process exits) and a wake-up pipe; nothing spins.
final class ProcessSupervisor: Sendable {
    private let stopRequested = Mutex(false)
    private let wake: (read: Int32, write: Int32)
    /// How far the attempt got before its process ran, or that it was given up on the way
    /// (`abandonUnlessRunning`).
    private let start = Mutex(StartState.preparing)
    /// Time the command spent frozen by a pause, which its deadline does not count.
    private let paused = Mutex(PausedTime())

    private enum StartState {
        /// `returned`: the attempt's thread came back before its process ran (it failed to
        /// start); nothing is left to give up.
        case preparing, launching, running, abandoned, returned
    }

    init() {
        var fds: [Int32] = [-1, -1]
        if lull_pipe(&fds, 1) != 0 { fds = [-1, -1] }
        wake = (fds[0], fds[1])
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Asks for the process group to be stopped; safe from any thread, at any time (a task's
    /// cancellation handler), before or while `supervise` runs.
    func requestStop() {
        stopRequested.withLock { $0 = true }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// The command was frozen: its deadline stops until `thawed`.
    func froze() { paused.withLock { $0.froze(at: Self.now()) } }

    /// The command goes on: its deadline moves on by the time it was frozen.
    func thawed() {
        paused.withLock { $0.thawed(at: Self.now()) }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// The deadline now: nil while frozen, moved on by the time frozen before.
    private func due(_ deadline: Double?) -> Double? {
        guard let deadline else { return nil }
        return paused.withLock { $0.due(deadline) }
    }

    /// The attempt is about to launch its process; false when it was given up meanwhile, and
    /// must not.
    func beginLaunch() -> Bool { advance(from: .preparing, to: .launching) }

    /// The process runs; false when the attempt was given up during the launch, and the
    /// process must be ended at once (no one awaits its outcome).
    func launched() -> Bool { advance(from: .launching, to: .running) }

    /// Gives the attempt up before its process runs, and then stops it: true when it had not
    /// got that far. Its thread can be stuck in the file system (a hung mount) looking at the
    /// working directory, or waiting for a child stuck entering it; it is left to end by
    /// itself. A process that runs is `supervise`'s to stop.
    func abandonUnlessRunning() -> Bool {
        let abandoned = start.withLock { state in
            guard state == .preparing || state == .launching else { return false }
            state = .abandoned
            return true
        }
        if abandoned { requestStop() }
        return abandoned
    }

    /// The attempt's thread is back from its start, whatever became of it.
    func attemptReturned() {
        start.withLock { state in
            if state == .preparing || state == .launching { state = .returned }
        }
    }

    private func advance(from: StartState, to: StartState) -> Bool {
        start.withLock { state in
            guard state == from, !stopWasRequested else {
                state = .abandoned
                return false
            }
            state = to
            return true
        }
    }

    /// What `supervise` saw.
    struct End: Sendable {
        /// The `wait4` status.
        var status: Int32
        var cpuSeconds: Double
        var memoryPeakBytes: Int64
        /// Storage bytes (`ru_inblock`, `ru_oublock`: 512-byte blocks); nil where the kernel does
        /// not count them.
        var ioReadBytes: Int64?
        var ioWriteBytes: Int64?
        var outputTail: String
        /// The process was stopped on request (the attempt was cancelled).
        var stopped: Bool
        /// The process was stopped because the attempt ran past `deadline`.
        var timedOut: Bool
        /// The kernel's OOM killer ended processes of its cgroup (at its `memory.max`).
        var oomKilled = false
    }

    /// Whether a stop was asked for (before the process started, it then never starts).
    var stopWasRequested: Bool { stopRequested.withLock { $0 } }

    /// Runs until process `pid` has exited and its output is read (blocking: call it on a thread
    /// of its own). `exiting` runs after the process exited and before it is reaped, while its
    /// pid and process group cannot yet be reused.
    func supervise(
        pid: Int32,
        output: Int32,
        log: RunLogFile,
        tail: OutputTail,
        grace: Double,
        deadline: Double?,
        cgroup: JobCgroup? = nil,
        exiting: () -> Void
    ) -> End {
        let target = StopTarget(leader: pid, cgroup: cgroup)
        var copy = OutputCopy(log: log, tail: tail)
        let pidfd = lull_pidfd_open(pid)
        defer { if pidfd >= 0 { close(pidfd) } }
        var (exited, outputOpen, stopped, timedOut) = (false, true, false, false)
        var killAt: Double?
        var drainUntil = Double.infinity
        while !(exited && (!outputOpen || Self.now() >= drainUntil)) {
            if !stopped, stopRequested.withLock({ $0 }) {
                stopped = true
                killAt = terminate(target, grace: grace)
            }
            let due = due(deadline)
            if !stopped, !timedOut, let due, Self.now() >= due {
                timedOut = true
                killAt = terminate(target, grace: grace)
            }
            if let at = killAt, !exited, Self.now() >= at {
                target.killAll()
                killAt = nil
            }
            var fds = [
                pollfd(fd: outputOpen ? output : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: exited ? -1 : pidfd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            let pending = stopped || timedOut ? nil : due
            let wait = timeout(killAt: killAt, deadline: pending, drainUntil: drainUntil, exited: exited, pidfd: pidfd)
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0, errno != EINTR { break }
            if fds[2].revents != 0 { drainWake() }
            if fds[0].revents != 0, !copy.read(from: output) { outputOpen = false }
            if !exited, hasExited(pid, pidfd: pidfd, readable: fds[1].revents != 0) {
                exited = true
                // What the command left behind in its group goes with it, as systemd ends a
                // service's processes when its main process exits.
                target.killAll()
                // Without a cgroup, a process that left the group (setsid) may hold the pipe
                // open: read on for a moment, not forever.
                drainUntil = Self.now() + 1
            }
        }
        exiting()
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
        let outputTail = copy.finish()
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        var end = End(
            status: status,
            cpuSeconds: cpu,
            memoryPeakBytes: Int64(usage.ru_maxrss) * 1024,
            ioReadBytes: GroupUsage.countsIO ? Int64(usage.ru_inblock) * 512 : nil,
            ioWriteBytes: GroupUsage.countsIO ? Int64(usage.ru_oublock) * 512 : nil,
            outputTail: outputTail,
            stopped: stopped,
            timedOut: timedOut
        )
        if let cgroup { end.count(in: cgroup) }
        return end
    }

    /// SIGTERM to the group (and SIGCONT, so a paused group can act on it); SIGKILL is due at
    /// the time returned.
    private func terminate(_ target: StopTarget, grace: Double) -> Double {
        target.signal(SIGTERM)
        target.signal(SIGCONT)
        return Self.now() + grace
    }

    /// Whether the leader has exited, without reaping it (the group stays reserved meanwhile).
    private func hasExited(_ pid: Int32, pidfd: Int32, readable: Bool) -> Bool {
        if pidfd >= 0 { return readable }
        return lull_child_exited(pid) != 0
    }

    /// Milliseconds poll may sleep: until the next thing due, forever when nothing is (with a
    /// pidfd), or 100 ms while the exit must be asked for (kernels before 5.3).
    private func timeout(killAt: Double?, deadline: Double?, drainUntil: Double, exited: Bool, pidfd: Int32) -> Int32 {
        let due = [killAt, exited ? drainUntil : nil, deadline].compactMap { $0 }
        var milliseconds = due.min().map { max(0, ($0 - Self.now()) * 1000).rounded(.up) } ?? -1
        if pidfd < 0, !exited { milliseconds = milliseconds < 0 ? 100 : min(milliseconds, 100) }
        return Int32(min(milliseconds, Double(Int32.max)))
    }

    private func drainWake() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(wake.read, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Readable once a stop is asked for (until `supervise` drains it).
    var wakeDescriptor: Int32 { wake.read }

    /// The monotonic clock attempts' deadlines are on.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
