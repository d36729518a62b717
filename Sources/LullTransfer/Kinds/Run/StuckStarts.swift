import LullCore
import Synchronization

/// Starts given up while their thread still waits in the kernel (a working directory or
/// program on a mount that stopped answering): each holds that thread until the mount answers.
/// A job whose given-up start is still stuck does not start again, since its next start would
/// hang the same way and hold one more thread: its attempt fails at once, retryably. Past
/// `limit` stuck starts no command starts at all until threads come back: attempts wait, up to
/// their total timeout, rather than spend their retries.
final class StuckStarts: Sendable {
    private struct State {
        var byJob: [JobID: Int] = [:]
        /// The supervisors of the starts given up, so a thread returning knows it was one.
        var given: Set<ObjectIdentifier> = []
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int = 16) {
        self.limit = limit
    }

    /// Why `job` may not start: its own last start is still stuck; nil when it is not.
    func refusal(for job: JobID) -> JobFailure? {
        guard state.withLock({ $0.byJob[job] ?? 0 }) > 0 else { return nil }
        return JobFailure(
            code: "start_stuck",
            message:
                "the job's last start is still stuck looking up its program or working directory (a hung network or FUSE mount?); it starts again once that returns",
            retryable: true
        )
    }

    /// Whether `limit` starts are stuck: no command starts until one returns.
    var isFull: Bool { count >= limit }

    /// An attempt that waited for room until its total timeout.
    func waitedTooLong() -> JobFailure {
        JobFailure(
            code: "start_stuck",
            message:
                "\(count) starts of commands are stuck looking up their programs or working directories (a hung network or FUSE mount?), the most lulld leaves waiting; this one waited for room until its total timeout",
            retryable: true
        )
    }

    /// Gives up `supervisor`'s start unless its process runs, and records it while its thread
    /// is out; true if it was given up.
    func giveUp(_ supervisor: ProcessSupervisor, of job: JobID) -> Bool {
        state.withLock { state in
            guard supervisor.abandonUnlessRunning() else { return false }
            state.byJob[job, default: 0] += 1
            state.given.insert(ObjectIdentifier(supervisor))
            return true
        }
    }

    /// The attempt's thread has returned from `supervisor`'s start: called before its outcome
    /// is handed over, so a give-up after it (a cancel racing the end) finds nothing to give up.
    func returned(_ supervisor: ProcessSupervisor, of job: JobID) {
        state.withLock { state in
            supervisor.attemptReturned()
            guard state.given.remove(ObjectIdentifier(supervisor)) != nil else { return }
            state.byJob[job, default: 1] -= 1
            if state.byJob[job] == 0 { state.byJob[job] = nil }
        }
    }

    /// Starts given up whose threads are still out.
    var count: Int { state.withLock { $0.given.count } }
}
