import Foundation
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
            spec: JobSpec(kind: .fetch, url: "http://h/\(n)", destination: "/tmp/\(n)", label: "batch"),
            createdAt: t0)
    }

    @Test func roundTripsEveryField() async throws {
        let store = try SQLiteJobStore(path: path)
        let spec = JobSpec(
            kind: .push, url: "https://h/p", method: "PUT", headers: ["X-Trace_id": "a"], contentType: "application/json",
            body: [0, 1, 2, 255], label: "l", jobClass: "utility")
        let inserted = try await store.insert([NewJob(owner: OwnerID(7), spec: spec, createdAt: t0)])
        let read = try #require(try await store.job(inserted[0].id))
        #expect(read == inserted[0])
        #expect(read.spec == spec)
        #expect(read.state == .queued)
    }

    @Test func survivesReopening() async throws {
        let ids = try await SQLiteJobStore(path: path).insert((0..<10).map { fetch($0) }).map(\.id)
        let reopened = try SQLiteJobStore(path: path)
        #expect(try await reopened.queuedJobs().map(\.id) == ids)
        #expect(try await reopened.integrityCheck() == "ok")
    }

    @Test func concurrentInsertsShareCommits() async throws {
        let store = try SQLiteJobStore(path: path)
        let ids = try await withThrowingTaskGroup(of: JobID.self) { group in
            for n in 0..<400 { group.addTask { try await store.insert([fetch(n)])[0].id } }
            return try await group.reduce(into: [JobID]()) { $0.append($1) }
        }
        #expect(Set(ids).count == 400)
        let commits = await store.commitCount
        #expect(commits < 400, "expected group commit to fold concurrent inserts, got \(commits) commits for 400 inserts")
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
        #expect(try await store.apply(JobUpdate(id: JobID(999), from: [.queued], to: .running, event: .started, time: t0)) == .notFound)
    }

    @Test func requeuesWhatWasRunning() async throws {
        let store = try SQLiteJobStore(path: path)
        let ids = try await store.insert([fetch(1), fetch(2)]).map(\.id)
        _ = try await store.apply(JobUpdate(id: ids[1], from: [.queued], to: .running, event: .started, time: t0))
        let reopened = try SQLiteJobStore(path: path)
        #expect(try await reopened.requeueInterrupted(at: t0) == [ids[1]])
        #expect(try await reopened.queuedJobs().map(\.id) == ids)
        let events = try await reopened.events(after: 0, owner: nil, limit: 100)
        #expect(events.map(\.type) == [.submitted, .submitted, .started, .requeued])
    }

    @Test func eventsArePerOwnerAndPaged() async throws {
        let published = Mutex<[Int64]>([])
        let store = try SQLiteJobStore(path: path) { events in published.withLock { $0 += events.map(\.seq) } }
        _ = try await store.insert([fetch(1, owner: 1), fetch(2, owner: 2), fetch(3, owner: 1)])
        let mine = try await store.events(after: 0, owner: OwnerID(1), limit: 100)
        #expect(mine.map(\.jobID.rawValue) == [1, 3])
        let firstPage = try await store.events(after: 0, owner: nil, limit: 2)
        let secondPage = try await store.events(after: firstPage.last!.seq, owner: nil, limit: 2)
        #expect((firstPage + secondPage).map(\.seq) == [1, 2, 3])
        #expect(published.withLock { $0 } == [1, 2, 3])
    }

    @Test func listsByFilterWithCursor() async throws {
        let store = try SQLiteJobStore(path: path)
        _ = try await store.insert((1...25).map { fetch($0, owner: $0 % 2 == 0 ? 2 : 1) })
        let page1 = try await store.list(JobFilter(owner: OwnerID(1), limit: 5))
        let page2 = try await store.list(JobFilter(owner: OwnerID(1), after: page1.last?.id, limit: 5))
        #expect(page1.map(\.id.rawValue) == [1, 3, 5, 7, 9])
        #expect(page2.map(\.id.rawValue) == [11, 13, 15, 17, 19])
        #expect(try await store.list(JobFilter(owner: nil, label: "nope")).isEmpty)
    }
}
