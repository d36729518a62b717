import Foundation
import LullAPI
import LullClient

/// Everything one frame of `top` shows, read from the daemon in one go.
struct TopSnapshot {
    var status: StatusView
    var running: [JobView]
    /// Queued jobs with why they wait (the first 1000).
    var queued: [JobView]
    /// The latest failures, newest first.
    var failures: [JobView]
    /// The sampler's history, oldest first; nil when this daemon does not offer it.
    var samples: [SampleView]?
    var takenAt: Date

    static let failuresShown = 5

    /// Reads the daemon's state. `previous` saves re-reading the failed jobs when their count did not change.
    static func read(
        from client: LullClient,
        previous: TopSnapshot?,
        samplesAvailable: inout Bool
    ) async throws -> TopSnapshot {
        let status = try await client.status()
        let running = try await client.list(state: "running", limit: 1000).jobs
        let queued = try await client.list(state: "queued", limit: 1000).jobs
        var failures = previous?.failures ?? []
        if previous == nil || previous?.status.jobs["failed"] != status.jobs["failed"] {
            failures = try await recentFailures(
                client,
                lastSeq: status.lastEventSeq,
                failed: status.jobs["failed"] ?? 0
            )
        }
        var samples: [SampleView]?
        if samplesAvailable {
            do {
                samples = try await client.samples().samples
            } catch LullClientError.api(404, _) {
                // An older daemon: the frame says so and top stops asking.
                samplesAvailable = false
            }
        }
        return TopSnapshot(
            status: status,
            running: running,
            queued: queued,
            failures: failures,
            samples: samples,
            takenAt: Date()
        )
    }

    /// How far back `recentFailures` reads the event log: as many requests as one page each, at most.
    static let failureSearchWindows = 10

    /// The newest failures, newest first. The job list cannot say which jobs failed last: it
    /// is in id (submission) order only, and an old job can fail after newer ones. The event
    /// log can: its `failed` events are in the order the jobs failed. So it is read backwards
    /// from `lastSeq`, a window of one page at a time, until enough failed jobs turn up or
    /// `failureSearchWindows` windows were read (a long history without failures costs a
    /// bounded read, and what it would find is not recent).
    private static func recentFailures(_ client: LullClient, lastSeq: Int64?, failed: Int) async throws -> [JobView] {
        let wanted = min(failuresShown, failed)
        let window: Int64 = 1000  // the largest page of GET /v1/events
        var ids: [Int64] = []
        var upper = lastSeq ?? 0
        var windows = 0
        while ids.count < wanted, upper > 0, windows < failureSearchWindows {
            let lower = max(0, upper - window)
            // A window holds at most one page of events of every owner, so of this caller's too;
            // events past `upper` were seen in the window before.
            let events = try await client.events(after: lower, limit: Int(window)).events
            for event in events.reversed()
            where event.seq <= upper && event.type == .failed && !ids.contains(event.jobId) {
                ids.append(event.jobId)
            }
            upper = lower
            windows += 1
        }
        var failures: [JobView] = []
        for id in ids.prefix(wanted) { failures.append(try await client.job(id)) }
        return failures
    }
}
