import Foundation
import GRDB
import Logging
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Testing

@testable import LullDaemon

/// A cancel of a job whose row no longer decodes frees its owner's quota once, however many
/// cancels were sent for it.
@Suite struct UnreadableCancelTests {
    @Test func aSecondCancelFromAStaleReadIsRefusedAndReleasesNothing() async throws {
        try await withTemporaryDirectory("unreadable-cancel") { directory in
            let path = directory + "/lull.sqlite"
            let spec = try JobSubmission(kind: .push, url: "http://127.0.0.1:9/x", body: "x").spec().prepared()
            let owner = OwnerID(1000)
            let jobs = try await SQLiteJobStore(path: path).insert(
                (0..<2).map { _ in NewJob(owner: owner, spec: spec, createdAt: Date()) }
            )
            try await DatabaseQueue(path: path).write { db in
                try db.execute(sql: "UPDATE jobs SET spec = '{' WHERE id = ?", arguments: [jobs[0].id.rawValue])
            }
            let store = try SQLiteJobStore(path: path)
            let dispatcher = holdingDispatcher(store: store)
            try await dispatcher.restore(pageSize: 50)
            let stale = try #require(await #expect(throws: UnreadableJob.self) { try await store.job(jobs[0].id) })

            // Two cancels read the job queued; the second finds it cancelled already.
            guard case .success(let cancelled) = try await dispatcher.cancel(stale) else {
                Issue.record("the first cancel was refused")
                return
            }
            #expect(cancelled.state == .cancelled)
            guard case .failure(let refusal) = try await dispatcher.cancel(stale) else {
                Issue.record("the second cancel took effect too")
                return
            }
            #expect(refusal.state == .cancelled)

            // The owner has one job left: room for exactly one more under a limit of two.
            guard case .success = await dispatcher.reserve(1, for: owner, limit: 2) else {
                Issue.record("the cancel freed no room")
                return
            }
            guard case .failure = await dispatcher.reserve(1, for: owner, limit: 2) else {
                Issue.record("the cancel freed its room twice")
                return
            }
            await dispatcher.release(1, for: owner)
        }
    }
}
