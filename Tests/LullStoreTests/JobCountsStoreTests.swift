import Foundation
import GRDB
import LullCore
import Testing

@testable import LullStore

/// The counts by class and state that `/metrics` and `GET /v1/status` read are kept by triggers
/// in the transaction of every change, and so always equal a count of the rows: after
/// submissions, state changes, a change from the columns of an unreadable row, the requeue at
/// start and the retention's deletions; and after the migration that made them, from the jobs a
/// store already held.
@Suite struct JobCountsStoreTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("lull-counts-\(UUID().uuidString).sqlite")
        .path
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func job(_ n: Int, class className: String) -> NewJob {
        NewJob(
            owner: OwnerID(1000 + UInt32(n % 3)),
            spec: JobSpec(.fetch(FetchJob(url: "http://h/\(n)", destination: "/tmp/\(n)")), jobClass: className),
            createdAt: t0
        )
    }

    /// What a count of every row gives, as the counts used to be read.
    func counted() async throws -> [JobCountKey: Int] {
        try await DatabaseQueue(path: path).read { db in
            var counts: [JobCountKey: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT class, state, COUNT(*) AS n FROM jobs GROUP BY class, state") {
                counts[JobCountKey(jobClass: row["class"], state: JobState(rawValue: row["state"])!)] = row["n"]
            }
            return counts
        }
    }

    func expectCountsMatch(_ store: SQLiteJobStore, _ stage: String) async throws {
        let rows = try await counted()
        #expect(try await store.countsByClassAndState() == rows, "\(stage)")
        var byState: [JobState: Int] = [:]
        for (key, n) in rows { byState[key.state, default: 0] += n }
        #expect(try await store.countsByState(owner: nil) == byState, "\(stage)")
        for state in JobState.allCases {
            #expect(try await store.count(in: state) == byState[state] ?? 0, "\(stage): \(state)")
        }
    }

    @Test func theCountsFollowEveryChange() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteJobStore(path: path)
        let classes = ["default", "background", "interactive"]
        let jobs = try await store.insert((0..<30).map { job($0, class: classes[$0 % 3]) })
        try await expectCountsMatch(store, "submitted")

        for job in jobs.prefix(20) {
            _ = try await store.apply(JobUpdate(id: job.id, from: [.queued], to: .running, event: .started, time: t0))
        }
        for (n, job) in jobs.prefix(12).enumerated() {
            let end: JobState = n % 3 == 0 ? .failed : n % 3 == 1 ? .succeeded : .cancelled
            let event: JobEventType = n % 3 == 0 ? .failed : n % 3 == 1 ? .succeeded : .cancelled
            _ = try await store.apply(
                JobUpdate(id: job.id, from: [.running], to: end, event: event, time: t0.addingTimeInterval(60))
            )
        }
        // A conflict changes nothing.
        _ = try await store.apply(JobUpdate(id: jobs[0].id, from: [.queued], to: .running, event: .started, time: t0))
        try await expectCountsMatch(store, "started and ended")

        // A row that no longer decodes, cancelled from its columns.
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE jobs SET resume = '[1]' WHERE id = ?", arguments: [jobs[25].id.rawValue])
        }
        _ = try await store.applyToUnreadable(
            JobUpdate(
                id: jobs[25].id,
                from: [.queued],
                to: .cancelled,
                event: .cancelled,
                time: t0.addingTimeInterval(60)
            )
        )
        try await expectCountsMatch(store, "an unreadable row cancelled")

        let reopened = try SQLiteJobStore(path: path)
        #expect(try await reopened.requeueInterrupted(at: t0).count == 8)
        try await expectCountsMatch(reopened, "requeued at start")

        let due = try await reopened.finishedJobs(endedBefore: t0.addingTimeInterval(3600), limit: 100)
        #expect(try await reopened.removeFinished(due.map(\.id), endedBefore: t0.addingTimeInterval(3600)) == 13)
        try await expectCountsMatch(reopened, "the finished removed")
        #expect(try await reopened.countsByClassAndState().keys.allSatisfy { $0.state == .queued })
    }

    /// A store made before the counts (schema v8) is counted once by the migration.
    @Test func theMigrationCountsTheJobsAStoreHeld() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try StoreSchema.migrator.migrate(queue, upTo: "v8: the file fetch validators were left with")
        try await queue.write { db in
            for (n, (className, state)) in [("default", "queued"), ("default", "queued"), ("bulk", "succeeded")]
                .enumerated()
            {
                try db.execute(
                    sql: """
                        INSERT INTO jobs (owner, kind, state, class, spec, created_at, updated_at)
                        VALUES (1000, 'fetch', ?, ?, '{}', ?, ?)
                        """,
                    arguments: [state, className, Double(n), Double(n)]
                )
            }
        }
        try queue.close()
        let store = try SQLiteJobStore(path: path)
        #expect(
            try await store.countsByClassAndState() == [
                JobCountKey(jobClass: "default", state: .queued): 2,
                JobCountKey(jobClass: "bulk", state: .succeeded): 1,
            ]
        )
        try await expectCountsMatch(store, "migrated")
    }
}
