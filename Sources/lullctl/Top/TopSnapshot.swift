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
    static func read(from client: LullClient, previous: TopSnapshot?, samplesAvailable: inout Bool) async throws -> TopSnapshot {
        let status = try await client.status()
        let running = try await client.list(state: "running", limit: 1000).jobs
        let queued = try await client.list(state: "queued", limit: 1000).jobs
        var failures = previous?.failures ?? []
        if previous == nil || previous?.status.jobs["failed"] != status.jobs["failed"] {
            failures = try await recentFailures(client)
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
            status: status, running: running, queued: queued, failures: failures, samples: samples, takenAt: Date())
    }

    /// The newest failures: jobs are listed oldest first, so read up to ten pages and keep the end.
    private static func recentFailures(_ client: LullClient) async throws -> [JobView] {
        var failed: [JobView] = []
        var cursor: Int64?
        var pages = 0
        repeat {
            let page = try await client.list(state: "failed", limit: 1000, after: cursor)
            failed += page.jobs
            cursor = page.nextAfter
            pages += 1
        } while cursor != nil && pages < 10
        return Array(failed.sorted { $0.updatedAt > $1.updatedAt }.prefix(failuresShown))
    }
}
