import Foundation
import GRDB
import LullCore
import LullStore
import Synchronization
import Testing

@Suite struct SQLiteJobStoreTests {
    let directory: URL
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lull-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var path: String { directory.appendingPathComponent("lull.sqlite").path }

    func fetch(_ n: Int, owner: UInt32 = 1000) -> NewJob {
        NewJob(
            owner: OwnerID(owner),
            spec: JobSpec(.fetch(FetchJob(url: "http://h/\(n)", destination: "/tmp/\(n)")), label: "batch"),
            createdAt: t0
        )
    }

    @Test func roundTripsEveryField() async throws {
        let store = try SQLiteJobStore(path: path)
        let spec = JobSpec(
            .push(
                PushJob(
                    url: "https://h/p",
                    method: "PUT",
                    headers: ["X-Trace_id": "a"],
                    contentType: "application/json",
                    body: [0, 1, 2, 255]
                )
            ),
            label: "l",
            jobClass: "utility"
        )
        let inserted = try await store.insert([NewJob(owner: OwnerID(7), spec: spec, createdAt: t0)])
        let read = try #require(try await store.job(inserted[0].id))
        #expect(read == inserted[0])
        #expect(read.spec == spec)
        #expect(read.state == .queued)
    }

    /// Decoded specs are kept by their text: two jobs with the same spec but other bodies (kept
    /// apart from the spec) each read back their own, however often they are read.
    @Test func jobsWithTheSameSpecTextKeepTheirOwnBodies() async throws {
        let store = try SQLiteJobStore(path: path)
        let specs = [[1, 2], [3]].map { body in
            JobSpec(.push(PushJob(url: "https://h/p", body: body.map(UInt8.init))), label: "same")
        }
        let inserted = try await store.insert(specs.map { NewJob(owner: OwnerID(7), spec: $0, createdAt: t0) })
        for _ in 0..<3 {
            #expect(try await store.job(inserted[0].id)?.spec == specs[0])
            #expect(try await store.job(inserted[1].id)?.spec == specs[1])
        }
        let listed = try await store.list(JobFilter(owner: nil)).items
        #expect(listed.map(\.job?.spec) == specs)
    }

    @Test func survivesReopening() async throws {
        let ids = try await SQLiteJobStore(path: path).insert((0..<10).map { fetch($0) }).map(\.id)
        let reopened = try SQLiteJobStore(path: path)
        #expect(try await reopened.queuedJobs(after: nil, limit: 1000).map(\.id) == ids)
        #expect(try await reopened.integrityCheck() == "ok")
    }

    @Test func theQueueIsReadPageByPageWithEverySchedulingField() async throws {
        let store = try SQLiteJobStore(path: path)
        let networks: [JobConstraints.Network] = [.any, .unmetered, .notCellular]
        let specs = (0..<7).map { n in
            let url = "http://host\(n % 2).example:8\(n)/x"
            let payload: JobPayload =
                switch n % 3 {
                case 0:
                    .fetch(
                        FetchJob(url: url, destination: "/tmp/\(n)", expectedBytes: n % 2 == 0 ? Int64(1000 * n) : nil)
                    )
                case 1: .push(PushJob(url: url, body: Array("b".utf8), expectedBytesUp: Int64(7 * n)))
                default: .upload(UploadJob(url: url, source: "/tmp/s\(n)"))
                }
            var spec = JobSpec(payload, label: "paged")
            spec.jobClass = ["background", "default", "interactive"][n % 3]
            spec.constraints = JobConstraints(
                network: networks[n % 3],
                requiresAC: n % 2 == 0,
                minBattery: n % 2 == 0 ? nil : Double(10 * n)
            )
            spec.notBefore = n % 3 == 0 ? t0.addingTimeInterval(Double(n)) : nil
            spec.deadline = n % 2 == 1 ? t0.addingTimeInterval(3600 + Double(n)) : nil
            spec.onDeadline = n % 2 == 1 ? .expire : nil
            return NewJob(owner: OwnerID(UInt32(2000 + n % 3)), spec: spec, createdAt: t0)
        }
        let inserted = try await store.insert(specs)
        _ = try await store.apply(JobUpdate(id: inserted[3].id, from: [.queued], to: .paused, event: .paused, time: t0))
        var pages: [[QueuedJob]] = []
        var after: JobID?
        while true {
            let page = try await store.queuedJobs(after: after, limit: 3)
            guard let last = page.last else { break }
            pages.append(page)
            after = last.id
        }
        let expected = inserted.filter { $0.id != inserted[3].id }.map { QueuedJob($0) }
        #expect(pages.map(\.count) == [3, 3])
        #expect(pages.flatMap { $0 } == expected, "every field the scheduler needs survives the store, in id order")
        #expect(try await store.countsByOwner(in: [.paused]) == [OwnerID(2000): 1])
        #expect(
            try await store.countsByOwner(in: [.queued, .paused]) == [
                OwnerID(2000): 3, OwnerID(2001): 2, OwnerID(2002): 2,
            ]
        )
    }

    /// An acknowledged submission must survive power loss, so the writer syncs every commit.
    /// GRDB's pool turns its writer to `synchronous = NORMAL` when it enables WAL; this fails if
    /// that setting wins again.
    @Test func everyCommitIsSyncedToDisk() async throws {
        let store = try SQLiteJobStore(path: path)
        _ = try await store.insert([fetch(0)])
        #expect(try store.synchronousLevel == 2, "the writer must run with PRAGMA synchronous = FULL (2)")
        #expect(try SQLiteJobStore(path: path).synchronousLevel == 2, "reopening an existing store keeps FULL")
    }

    @Test func concurrentInsertsShareCommits() async throws {
        let store = try SQLiteJobStore(path: path)
        let ids = try await withThrowingTaskGroup(of: JobID.self) { group in
            for n in 0..<400 { group.addTask { try await store.insert([fetch(n)])[0].id } }
            return try await group.reduce(into: [JobID]()) { $0.append($1) }
        }
        #expect(Set(ids).count == 400)
        let commits = store.commitCount
        #expect(
            commits < 400,
            "expected group commit to fold concurrent inserts, got \(commits) commits for 400 inserts"
        )
        #expect(try await store.countsByState(owner: nil)[.queued] == 400)
    }

    @Test func updatesAreCompareAndSet() async throws {
        let store = try SQLiteJobStore(path: path)
        let id = try await store.insert([fetch(1)])[0].id
        let start = JobUpdate(id: id, from: [.queued], to: .running, event: .started, time: t0, countsAsAttempt: true)
        guard case .applied(let running) = try await store.apply(start) else {
            Issue.record("start did not apply")
            return
        }
        #expect(running.attempts == 1)
        guard case .conflict(let current) = try await store.apply(start) else {
            Issue.record("second start applied to a running job")
            return
        }
        #expect(current.state == .running)
        #expect(
            try await store.apply(JobUpdate(id: JobID(999), from: [.queued], to: .running, event: .started, time: t0))
                == .notFound
        )
    }

    @Test func requeuesWhatWasRunning() async throws {
        let store = try SQLiteJobStore(path: path)
        let ids = try await store.insert([fetch(1), fetch(2)]).map(\.id)
        _ = try await store.apply(JobUpdate(id: ids[1], from: [.queued], to: .running, event: .started, time: t0))
        #expect(try await store.count(in: .queued) == 1)
        #expect(try await store.count(in: .running) == 1)
        let reopened = try SQLiteJobStore(path: path)
        #expect(try await reopened.requeueInterrupted(at: t0) == [ids[1]])
        #expect(try await reopened.queuedJobs(after: nil, limit: 1000).map(\.id) == ids)
        let events = try await reopened.events(after: 0, owner: nil, limit: 100).items
        #expect(events.map(\.type) == [.submitted, .submitted, .started, .requeued])
        #expect(try await reopened.count(in: .queued) == 2)
        #expect(try await reopened.count(in: .running) == 0)
    }

    /// A row whose records no longer decode (a manual edit, a damaged page) once made every start
    /// fail here, as the requeue read whole rows; it needs only their ids and owners.
    @Test func requeuesARunningJobWhoseRowNoLongerDecodes() async throws {
        let store = try SQLiteJobStore(path: path)
        let id = try await store.insert([fetch(1, owner: 1234)])[0].id
        _ = try await store.apply(JobUpdate(id: id, from: [.queued], to: .running, event: .started, time: t0))
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE jobs SET failure = '{\"code\":\"x\"}' WHERE id = ?", arguments: [id.rawValue])
        }
        let reopened = try SQLiteJobStore(path: path)
        await #expect(throws: (any Error).self) { try await reopened.job(id) }
        #expect(try await reopened.requeueInterrupted(at: t0) == [id])
        #expect(try await reopened.count(in: .queued) == 1)
        let requeued = try #require(try await reopened.events(after: 0, owner: nil, limit: 100).items.last)
        #expect(requeued.type == .requeued && requeued.owner == OwnerID(1234) && requeued.state == .queued)
    }

    @Test func aRowThatNoLongerDecodesIsReadFromItsColumnsAndCanBeCancelled() async throws {
        let store = try SQLiteJobStore(path: path)
        var hooked = fetch(1, owner: 1234)
        hooked.spec.onCompleteUnit = "done.service"
        let ids = try await store.insert([hooked, fetch(2), fetch(3)]).map(\.id)
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE jobs SET resume = '[1]' WHERE id = ?", arguments: [ids[0].rawValue])
        }
        let reopened = try SQLiteJobStore(path: path)
        let error = await #expect(throws: UnreadableJob.self) { try await reopened.job(ids[0]) }
        #expect(error?.owner == OwnerID(1234) && error?.kind == .fetch && error?.state == .queued)
        #expect(error?.problem.hasPrefix("resume: ") == true, "\(String(describing: error))")

        // In its place in a page, between readable jobs.
        let page = try await reopened.list(JobFilter(owner: nil)).items
        #expect(page.map(\.id) == ids)
        #expect(page.map { $0.job == nil } == [true, false, false])

        // A cancel from the columns, with its event; a second finds it cancelled already.
        let cancel = JobUpdate(id: ids[0], from: [.queued], to: .cancelled, event: .cancelled, time: t0)
        guard case .applied(let cancelled) = try await reopened.applyToUnreadable(cancel) else {
            Issue.record("the cancel did not apply")
            return
        }
        #expect(cancelled.state == .cancelled && cancelled.updatedAt == t0)
        guard case .conflict(let again) = try await reopened.applyToUnreadable(cancel) else {
            Issue.record("a second cancel applied too")
            return
        }
        #expect(again.state == .cancelled)
        let events = try await reopened.events(after: 0, owner: OwnerID(1234), limit: 100).items
        #expect(events.map(\.type) == [.submitted, .cancelled])
        let missing = JobUpdate(id: JobID(99), from: [.queued], to: .cancelled, event: .cancelled, time: t0)
        #expect(try await reopened.applyToUnreadable(missing) == .notFound)

        // It owes no completion hook, so retention removes it like any ended job.
        #expect(try await reopened.pendingCompletionHooks().isEmpty)
        let expired = try await reopened.finishedJobs(endedBefore: t0.addingTimeInterval(1), limit: 10)
        #expect(expired.map(\.id) == [ids[0]])
    }

    @Test func anEventWhoseDetailNoLongerDecodesIsServedSayingSo() async throws {
        let store = try SQLiteJobStore(path: path)
        let id = try await store.insert([fetch(1)])[0].id
        let pause = JobUpdate(id: id, from: [.queued], to: .paused, event: .paused, time: t0, message: "by hand")
        _ = try await store.apply(pause)
        _ = try await store.apply(JobUpdate(id: id, from: [.paused], to: .queued, event: .resumed, time: t0))
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE events SET detail = '{\"attempt\":\"x\"}' WHERE type = 'paused'")
        }
        let reopened = try SQLiteJobStore(path: path)
        // A follower reading one event a page gets it and goes on past it.
        var seen: [JobEvent] = []
        while let next = try await reopened.events(after: seen.last?.seq ?? 0, owner: nil, limit: 1).items.first {
            seen.append(next)
        }
        #expect(seen.map(\.type) == [.submitted, .paused, .resumed])
        let message = seen[1].detail?.message ?? ""
        #expect(message.hasPrefix("this event's stored detail cannot be read (detail: "), "\(message)")
    }

    /// A newer lulld may add event types and job states without a migration; after going back to
    /// this one, a page that met such an event failed, and every follower stopped there.
    @Test func eventsANewerLulldWroteAreLeftOutAndPagesReadOnPastThem() async throws {
        let store = try SQLiteJobStore(path: path)
        let ids = try await store.insert([fetch(1), fetch(2), fetch(3), fetch(4, owner: 7)]).map(\.id)
        _ = try await store.apply(JobUpdate(id: ids[2], from: [.queued], to: .paused, event: .paused, time: t0))
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE events SET type = 'throttled' WHERE job_id = ?", arguments: [ids[0].rawValue])
            try db.execute(sql: "UPDATE events SET state = 'frozen' WHERE job_id = ?", arguments: [ids[1].rawValue])
        }
        let reopened = try SQLiteJobStore(path: path)
        let all = try await reopened.events(after: 0, owner: nil, limit: 100).items
        #expect(all.map(\.jobID) == [ids[2], ids[3], ids[2]])
        #expect(all.map(\.type) == [.submitted, .submitted, .paused])
        // Pages of one: the first reads on past the two it leaves out, and a follower reaches
        // the end, for one owner as for all.
        for owner in [nil, OwnerID(1000)] {
            var seen: [JobEvent] = []
            while let next = try await reopened.events(after: seen.last?.seq ?? 0, owner: owner, limit: 1).items.first {
                seen.append(next)
            }
            #expect(seen.map(\.seq) == all.filter { owner == nil || $0.owner == owner }.map(\.seq))
        }
        // Nothing after the last readable event: an empty page, not a failure.
        let end = try await reopened.events(after: all.last!.seq, owner: nil, limit: 10)
        #expect(end.items.isEmpty && !end.cutShort && end.readThrough == nil)

        // Left-out events at the end of the log: the page's cursor goes past them. More of them
        // than one page reads past: the page ends cut short, its cursor at the last one read.
        let last = all.last!.seq
        let added = try await DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO events (job_id, owner, time, type, state) SELECT ?, 1000, 0, 'throttled', 'queued' FROM n
                    """,
                arguments: [SQLiteJobStore.maxLeftOut + 5, ids[2].rawValue]
            )
            return try Int64.fetchAll(db, sql: "SELECT seq FROM events WHERE seq > ? ORDER BY seq", arguments: [last])
        }
        let cut = try await reopened.events(after: last, owner: nil, limit: 10)
        #expect(cut.items.isEmpty && cut.cutShort && cut.readThrough == added[SQLiteJobStore.maxLeftOut - 1])
        let rest = try await reopened.events(after: cut.readThrough ?? 0, owner: OwnerID(1000), limit: 10)
        #expect(rest.items.isEmpty && !rest.cutShort && rest.readThrough == added.last)
    }

    @Test func eventsArePerOwnerAndPaged() async throws {
        let published = Mutex<[Int64]>([])
        let store = try SQLiteJobStore(path: path) { events in published.withLock { $0 += events.map(\.seq) } }
        _ = try await store.insert([fetch(1, owner: 1), fetch(2, owner: 2), fetch(3, owner: 1)])
        let mine = try await store.events(after: 0, owner: OwnerID(1), limit: 100).items
        #expect(mine.map(\.jobID.rawValue) == [1, 3])
        let firstPage = try await store.events(after: 0, owner: nil, limit: 2).items
        let secondPage = try await store.events(after: firstPage.last!.seq, owner: nil, limit: 2).items
        #expect((firstPage + secondPage).map(\.seq) == [1, 2, 3])
        #expect(published.withLock { $0 } == [1, 2, 3])
    }

    /// Followers are served the events handed to `didCommit` from memory (the hub's tail), and
    /// pages read later from the store: both must be the same events, to the last bit.
    @Test func publishedEventsAreTheEventsReadBack() async throws {
        let published = Mutex<[JobEvent]>([])
        let store = try SQLiteJobStore(path: path) { events in published.withLock { $0 += events } }
        let id = try await store.insert([fetch(1)])[0].id
        // A time no Double since 1970 holds exactly as the Date was made.
        let odd = Date(timeIntervalSinceReferenceDate: 817_000_000.123_456_789)
        var failure = StoredRecordJSONTests.failure
        failure.result = StoredRecordJSONTests.result  // a failure's result is not stored
        let updates = [
            JobUpdate(id: id, from: [.queued], to: .running, event: .started, time: odd, countsAsAttempt: true),
            JobUpdate(
                id: id,
                from: [.running],
                to: .running,
                event: .progress,
                time: odd.addingTimeInterval(1e-7),
                progress: StoredRecordJSONTests.detail.progress,
                usage: StoredRecordJSONTests.detail.usage
            ),
            JobUpdate(
                id: id,
                from: [.running],
                to: .queued,
                event: .retrying,
                time: odd,
                failure: failure,
                message: "retry \"soon\"",
                retryAt: odd.addingTimeInterval(1.0 / 3)
            ),
            JobUpdate(id: id, from: [.queued], to: .running, event: .started, time: odd, countsAsAttempt: true),
            JobUpdate(
                id: id,
                from: [.running],
                to: .succeeded,
                event: .succeeded,
                time: Date(),
                result: StoredRecordJSONTests.result
            ),
        ]
        for update in updates {
            guard case .applied = try await store.apply(update) else {
                Issue.record("\(update.event) did not apply")
                return
            }
        }
        let stored = try await store.events(after: 0, owner: nil, limit: 100).items
        #expect(stored.count == 6)
        #expect(published.withLock { $0 } == stored)
    }

    @Test func listsByFilterWithCursor() async throws {
        let store = try SQLiteJobStore(path: path)
        _ = try await store.insert((1...25).map { fetch($0, owner: $0 % 2 == 0 ? 2 : 1) })
        let page1 = try await store.list(JobFilter(owner: OwnerID(1), limit: 5)).items
        let page2 = try await store.list(JobFilter(owner: OwnerID(1), after: page1.last?.id, limit: 5)).items
        #expect(page1.map(\.id.rawValue) == [1, 3, 5, 7, 9])
        #expect(page2.map(\.id.rawValue) == [11, 13, 15, 17, 19])
        #expect(try await store.list(JobFilter(owner: nil, label: "nope")).items.isEmpty)
    }
}
