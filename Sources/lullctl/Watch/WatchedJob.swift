import Foundation
import LullAPI
import LullCore

/// What `watch` knows about one job: its last state and progress, kept current by events.
struct WatchedJob {
    var id: Int64
    var kind: JobKind
    var target: String
    var state: JobState
    var progress: ProgressView?
    /// A running command's last sampled usage (run jobs), from its view and `progress` events.
    var usage: UsageView?
    /// The job runs a command: it shows its usage where a transfer shows its bar.
    let runsCommand: Bool
    var error: FailureView?
    var retryAt: Date?
    var notModified = false
    /// Why a queued job waits, as the daemon last said.
    var waitingFor: [String] = []
    var startedAt: Date?
    /// Whether this watch can see the job's first start (it was still waiting for it), so that
    /// "done in N s" covers every attempt.
    private let seesFirstStart: Bool
    var endedAt: Date?
    /// The progress step (in tenths) last printed in plain mode, so a pipe gets a line per 10 %.
    var printedStep = -1

    init(_ job: JobView) {
        id = job.id
        kind = job.kind
        target = Format.target(job)
        state = job.state
        progress = job.progress
        usage = job.usage
        runsCommand = job.argv != nil
        error = job.error
        retryAt = job.retryAt
        notModified = job.result?.notModified ?? false
        waitingFor = job.waitingFor?.map { Format.reason($0) } ?? []
        seesFirstStart = job.state == .queued && job.attempts == 0
        if job.state.isTerminal { endedAt = job.updatedAt }
    }

    /// A newer view of the job (refetched while it waits in the queue).
    mutating func refresh(from job: JobView) {
        waitingFor = job.waitingFor?.map { Format.reason($0) } ?? []
        retryAt = job.retryAt
        if job.state != state, !state.isTerminal { state = job.state }
    }

    /// Applies one event; answers whether the state changed.
    @discardableResult
    mutating func apply(_ event: EventView) -> Bool {
        let changed = event.state != state
        state = event.state
        if let progress = event.progress { self.progress = progress }
        if let usage = event.usage { self.usage = usage }
        switch event.type {
        case .started:
            usage = nil
            // The first start: a job that retried took the whole time, not just its last attempt.
            if seesFirstStart && startedAt == nil { startedAt = event.time }
            error = nil
            retryAt = nil
            waitingFor = []
        case .stopped:
            // Until the next refetch says what holds it now.
            waitingFor = ["stopped: " + (event.reason ?? "conditions lapsed").replacingOccurrences(of: "_", with: " ")]
        case .retrying:
            error = event.error
            retryAt = event.retryAt
        case .failed:
            error = event.error
        case .succeeded:
            notModified = event.result?.notModified ?? false
            if let bytes = event.result?.bytes, progress == nil {
                progress = ProgressView(TransferProgress(bytesDone: bytes, bytesTotal: bytes))
            }
        default:
            break
        }
        if state.isTerminal { endedAt = event.time }
        return changed
    }

    /// The progress's own fraction; a job that succeeded without saying its size is done all the same.
    var fraction: Double? {
        progress?.fraction ?? (state == .succeeded ? 1 : nil)
    }

    /// The words after the state: progress, why it waits, or how it ended.
    func detail(now: Date) -> String {
        switch state {
        case .running:
            if runsCommand { return usage.map(Format.usage) ?? "starting" }
            return progress.map(Format.transfer) ?? "connecting"
        case .queued:
            if let retryAt, retryAt > now {
                return "retrying \(Format.time(retryAt, now: now))" + (error.map { " after \($0.code)" } ?? "")
            }
            return waitingFor.isEmpty ? "about to start" : "waiting: " + waitingFor.joined(separator: "; ")
        case .paused:
            return "paused; lullctl resume \(id) puts it back in the queue"
        case .succeeded:
            if notModified { return "not modified since the last fetch" }
            var text = progress.map { Format.bytes($0.bytesDone) } ?? "done"
            if let startedAt, let endedAt {
                text += " in " + Format.duration(max(0, endedAt.timeIntervalSince(startedAt)))
            }
            return text
        case .failed:
            return error.map { "\($0.code): \($0.message)" } ?? "failed"
        case .cancelled:
            return "cancelled"
        case .expired:
            return "its deadline passed before it could run"
        }
    }
}
