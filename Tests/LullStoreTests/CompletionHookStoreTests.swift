import Foundation
import LullCore
import LullStore
import Testing

/// Migration v4: the store remembers which ended jobs still owe their completion hook, so a
/// hook due when the daemon stopped or crashed runs at the next start.
@Suite struct CompletionHookStoreTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("lull-hooks-\(UUID().uuidString).sqlite")
        .path
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func endedJobsOweTheirHookUntilItRan() async throws {
        let store = try SQLiteJobStore(path: path)
        let jobs = try await store.insert([
            NewJob(
                owner: OwnerID(1000),
                spec: JobSpec(.fetch(FetchJob(url: "http://h/a", destination: "/tmp/a")), onCompleteUnit: "a.service"),
                createdAt: t0
            ),
            NewJob(
                owner: OwnerID(1000),
                spec: JobSpec(.fetch(FetchJob(url: "http://h/b", destination: "/tmp/b"))),
                createdAt: t0
            ),
            NewJob(
                owner: OwnerID(1000),
                spec: JobSpec(.fetch(FetchJob(url: "http://h/c", destination: "/tmp/c")), onCompleteUnit: "c@.service"),
                createdAt: t0
            ),
        ])
        #expect(try await store.pendingCompletionHooks().isEmpty, "queued jobs owe nothing yet")
        for job in jobs {
            _ = try await store.apply(
                JobUpdate(id: job.id, from: [.queued], to: .cancelled, event: .cancelled, time: t0)
            )
        }
        #expect(try await store.pendingCompletionHooks().map(\.id) == [jobs[0].id, jobs[2].id])
        try await store.completionHookRan(jobs[0].id, at: t0)
        let reopened = try SQLiteJobStore(path: path)
        let pending = try await reopened.pendingCompletionHooks()
        #expect(pending.map(\.id) == [jobs[2].id])
        #expect(pending.first?.job?.spec.onCompleteUnit == "c@.service")
    }
}
