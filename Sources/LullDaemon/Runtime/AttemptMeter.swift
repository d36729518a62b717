import LullCore
import LullSensors
import Synchronization

/// Counts what one attempt of a job moves, by link type, as the engine reports progress (on
/// transfer threads, hence the lock). Progress counts bytes of the file, so the meter counts
/// what the counter advanced beyond where the attempt resumed; a counter that goes backwards
/// means the transfer started over, and counting restarts from zero.
final class AttemptMeter: Sendable {
    private struct State {
        var accountant: JobAccountant
        var lastBytes: Int64
        var network: NetworkState
        /// Bytes moved over metered links and not yet charged to the scheduler's daily budgets.
        var uncharged: Int64 = 0
    }

    let direction: DaemonMetrics.Direction
    let owner: OwnerID
    let jobClass: String
    private let metrics: DaemonMetrics
    private let state: Mutex<State>

    /// Starts counting an attempt of `job`, which resumes from its stored offset (a fetch's
    /// partial file, a tus upload's confirmed bytes) or from zero.
    init(job: Job, accountant: JobAccountant, network: NetworkState, metrics: DaemonMetrics) {
        direction = job.spec.payload.contents.progressDirection == .received ? .down : .up
        owner = job.owner
        jobClass = job.spec.jobClass
        self.metrics = metrics
        var started = accountant
        started.attemptStarted(daemonCPUSeconds: ProcessUsage.cpuSeconds())
        state = Mutex(State(accountant: started, lastBytes: job.resume?.offset ?? 0, network: network))
    }

    func networkChanged(_ network: NetworkState) {
        state.withLock { $0.network = network }
    }

    func observe(_ progress: TransferProgress) {
        let (moved, link) = state.withLock { state -> (Int64, LinkType) in
            let restarted = progress.bytesDone < state.lastBytes
            let moved = restarted ? progress.bytesDone : progress.bytesDone - state.lastBytes
            state.lastBytes = progress.bytesDone
            guard moved > 0 else { return (0, state.network.link) }
            switch direction {
            case .down: state.accountant.received(moved, over: state.network.link)
            case .up: state.accountant.sent(moved, over: state.network.link)
            }
            if state.network.metered { state.uncharged += moved }
            return (moved, state.network.link)
        }
        metrics.transferred(moved, direction, over: link)
    }

    /// Metered bytes since the last call, for the scheduler's per-day budgets.
    func takeMeteredBytes() -> Int64 {
        state.withLock { state in
            defer { state.uncharged = 0 }
            return state.uncharged
        }
    }

    /// Ends the attempt; the accountant carries on into the next attempt or into the result.
    func finish() -> JobAccountant {
        let cpu = ProcessUsage.cpuSeconds()
        return state.withLock { state in
            state.accountant.attemptEnded(daemonCPUSeconds: cpu)
            return state.accountant
        }
    }
}
