import Foundation
import LullAPI
import LullCore

/// The jobs `watch` follows, in the order given, and what their ends mean for the exit code.
struct WatchBoard {
    private(set) var jobs: [WatchedJob]

    init(_ jobs: [JobView]) {
        self.jobs = jobs.map(WatchedJob.init)
    }

    var ids: Set<Int64> { Set(jobs.map(\.id)) }
    var allEnded: Bool { jobs.allSatisfy(\.state.isTerminal) }
    var queuedIDs: [Int64] { jobs.filter { $0.state == .queued }.map(\.id) }

    /// Applies an event if it is about a watched job; returns the job after it, else nil.
    mutating func apply(_ event: EventView) -> (job: WatchedJob, stateChanged: Bool)? {
        guard let index = jobs.firstIndex(where: { $0.id == event.jobId }) else { return nil }
        let changed = jobs[index].apply(event)
        return (jobs[index], changed)
    }

    mutating func refresh(from job: JobView) {
        guard let index = jobs.firstIndex(where: { $0.id == job.id }) else { return }
        jobs[index].refresh(from: job)
    }

    mutating func markPrinted(_ id: Int64, step: Int) {
        guard let index = jobs.firstIndex(where: { $0.id == id }) else { return }
        jobs[index].printedStep = step
    }

    /// Succeeded (including not modified) is success; failed, cancelled and expired are not.
    var failures: [WatchedJob] { jobs.filter { $0.state.isTerminal && $0.state != .succeeded } }

    func counts() -> String {
        let order: [JobState] = [.running, .queued, .paused, .succeeded, .failed, .cancelled, .expired]
        return order.compactMap { state in
            let count = jobs.filter { $0.state == state }.count
            return count > 0 ? "\(count) \(state.rawValue)" : nil
        }.joined(separator: ", ")
    }

    /// The closing line: all good, or which jobs did not succeed.
    func summary() -> String {
        let failed = failures
        if failed.isEmpty {
            return jobs.count == 1 ? "job \(jobs[0].id) succeeded" : "all \(jobs.count) jobs succeeded"
        }
        let list = failed.map { job in
            "job \(job.id) \(job.state.rawValue)" + (job.error.map { " (\($0.code))" } ?? "")
        }.joined(separator: ", ")
        return "\(failed.count) of \(jobs.count) \(jobs.count == 1 ? "job" : "jobs") did not succeed: \(list). "
            + "lullctl show \(failed[0].id) says more."
    }
}
