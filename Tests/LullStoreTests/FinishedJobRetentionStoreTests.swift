import Foundation
import GRDB
import LullCore
import Testing

@testable import LullStore

/// The store's side of retention: which finished jobs may go, and that they go with their events
/// and nothing else does.
@Suite struct FinishedJobRetentionStoreTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("lull-keep-\(UUID().uuidString).sqlite")
        .path
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static func day(_ n: Double) -> Date { start.addingTimeInterval(n * 86_400) }

    func submit(_ store: SQLiteJobStore, _ kind: JobPayload, hook: String? = nil, at time: Date) async throws -> Job {
        try await store.insert([NewJob(owner: OwnerID(7), spec: JobSpec(kind, onCompleteUnit: hook), createdAt: time)])[
            0
        ]
    }

    func finish(
        _ store: SQLiteJobStore,
        _ job: Job,
        as state: JobState,
        at time: Date,
        result: JobResult? = nil
    ) async throws {
        _ = try await store.apply(
            JobUpdate(id: job.id, from: [.queued], to: .running, event: .started, time: time, countsAsAttempt: true)
        )
        let event: JobEventType =
            switch state {
            case .succeeded: .succeeded
            case .failed: .failed
            default: .cancelled
            }
        _ = try await store.apply(
            JobUpdate(id: job.id, from: [.running], to: state, event: event, time: time, result: result)
        )
    }

    static func fetch(_ n: Int) -> JobPayload { .fetch(FetchJob(url: "http://h/\(n)", destination: "/tmp/\(n)")) }

    @Test func onlyOldFinishedJobsGoAndTheirEventsWithThem() async throws {
        let store = try SQLiteJobStore(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let succeeded = try await submit(store, Self.fetch(1), at: Self.day(0))
        try await finish(store, succeeded, as: .succeeded, at: Self.day(1))
        let failedRun = try await submit(store, .run(RunJob(argv: ["false"])), at: Self.day(0))
        try await finish(store, failedRun, as: .failed, at: Self.day(1))
        let stillQueued = try await submit(store, Self.fetch(3), at: Self.day(0))
        let hookDue = try await submit(store, Self.fetch(4), hook: "done.service", at: Self.day(0))
        try await finish(store, hookDue, as: .succeeded, at: Self.day(1))
        let young = try await submit(store, Self.fetch(5), at: Self.day(0))
        try await finish(store, young, as: .cancelled, at: Self.day(40))
        let newest = try await submit(store, Self.fetch(6), at: Self.day(0))
        try await finish(store, newest, as: .succeeded, at: Self.day(1))
        let lastSeq = try await store.latestEventSeq()

        let cutoff = Self.day(35)
        let due = try await store.finishedJobs(endedBefore: cutoff, limit: 100)
        #expect(
            Set(due) == [FinishedJob(id: succeeded.id, kind: .fetch), FinishedJob(id: failedRun.id, kind: .run)],
            "\(due)"
        )
        #expect(try await store.finishedJobs(endedBefore: cutoff, limit: 1).count == 1)
        // Ids that are not due are not deleted, whatever the caller passes.
        let all = [succeeded, failedRun, stillQueued, hookDue, young, newest].map(\.id)
        #expect(try await store.removeFinished(all, endedBefore: cutoff) == 2)

        for gone in [succeeded, failedRun] {
            #expect(try await store.job(gone.id) == nil)
        }
        for kept in [stillQueued, hookDue, young, newest] {
            #expect(try await store.job(kept.id) != nil, "job \(kept.id) was removed")
        }
        let events = try await store.events(after: 0, owner: nil, limit: 1000).items
        #expect(Set(events.map(\.jobID)) == Set([stillQueued, hookDue, young, newest].map(\.id)))
        #expect(events.count == 1 + 3 * 3)
        #expect(try await store.latestEventSeq() == lastSeq)

        // Once its hook has run, the job may go too.
        try await store.completionHookRan(hookDue.id, at: Self.day(2))
        #expect(try await store.finishedJobs(endedBefore: cutoff, limit: 100).map(\.id) == [hookDue.id])
    }

    /// `jobs.id` is a rowid: SQLite gives the next job the highest id present plus one, so the
    /// newest job stays until a newer one exists, and no id is ever given twice.
    @Test func theNewestJobStaysSoNoIdIsGivenTwice() async throws {
        let store = try SQLiteJobStore(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var ids: [JobID] = []
        for n in 1...3 {
            let job = try await submit(store, Self.fetch(n), at: Self.day(0))
            try await finish(store, job, as: .succeeded, at: Self.day(1))
            ids.append(job.id)
        }
        let cutoff = Self.day(35)
        let due = try await store.finishedJobs(endedBefore: cutoff, limit: 100).map(\.id)
        #expect(due == Array(ids.prefix(2)))
        #expect(try await store.removeFinished(ids, endedBefore: cutoff) == 2)
        let next = try await submit(store, Self.fetch(4), at: Self.day(2))
        #expect(next.id.rawValue == ids[2].rawValue + 1)
        let seqBefore = try await store.latestEventSeq()
        try await finish(store, next, as: .succeeded, at: Self.day(2))
        #expect(try await store.removeFinished([ids[2]], endedBefore: cutoff) == 1)
        // Every event of the remaining job is newer than any before.
        let events = try await store.events(after: 0, owner: nil, limit: 100).items
        #expect(events.map(\.jobID) == [next.id, next.id, next.id])
        #expect(events.allSatisfy { $0.seq > seqBefore - 1 })
    }

    @Test func validatorsNotStoredSinceTheCutoffAreForgotten() async throws {
        let store = try SQLiteJobStore(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let old = try await submit(store, Self.fetch(1), at: Self.day(0))
        try await finish(store, old, as: .succeeded, at: Self.day(1), result: JobResult(httpStatus: 200, etag: "\"a\""))
        let recent = try await submit(store, Self.fetch(2), at: Self.day(0))
        try await finish(
            store,
            recent,
            as: .succeeded,
            at: Self.day(40),
            result: JobResult(httpStatus: 200, etag: "\"b\"")
        )
        #expect(try await store.forgetFetchValidators(storedBefore: Self.day(35)) == 1)
        #expect(try await store.fetchValidators(owner: OwnerID(7), url: "http://h/1", destination: "/tmp/1") == nil)
        #expect(
            try await store.fetchValidators(owner: OwnerID(7), url: "http://h/2", destination: "/tmp/2")?.etag
                == "\"b\""
        )
    }

    /// The sweep reads a range of the `jobs_ended` index, not every job ever kept.
    @Test func theSweepReadsTheEndedJobsIndex() async throws {
        _ = try SQLiteJobStore(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let plan = try await DatabaseQueue(path: path).read { db in
            try Row.fetchAll(
                db,
                sql: "EXPLAIN QUERY PLAN " + SQLiteJobStore.finishedJobsSQL,
                arguments: [0.0, 10]
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("jobs_ended") }, "\(plan)")
    }

    /// Completion hooks still owed are found at each start from their own small index.
    @Test func pendingHooksAreReadFromTheirIndex() async throws {
        _ = try SQLiteJobStore(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let plan = try await DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteJobStore.pendingHooksSQL).map {
                $0["detail"] as String
            }
        }
        #expect(plan.contains { $0.contains("jobs_pending_hooks") }, "\(plan)")
    }
}
