import Foundation
import Logging
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Testing

@testable import LullDaemon

/// Start-up reads the queue page by page while the previous page goes into the scheduler.
@Suite struct DispatcherRestoreTests {
    @Test func everyQueuedJobIsRestoredAcrossPages() async throws {
        try await withTemporaryDirectory("restore") { directory in
            let store = try SQLiteJobStore(path: directory + "/lull.sqlite")
            let spec = try JobSubmission(kind: .push, url: "http://127.0.0.1:9/x", body: "x").spec().prepared()
            let jobs = try await store.insert(
                (0..<230).map { NewJob(owner: OwnerID(UInt32(1000 + $0 % 3)), spec: spec, createdAt: Date()) }
            )
            for job in jobs[..<10] {
                _ = try await store.apply(
                    JobUpdate(id: job.id, from: [.queued], to: .paused, event: .paused, time: Date())
                )
            }

            let (gate, _) = AsyncStream.makeStream(of: Void.self)
            let dispatcher = holdingDispatcher(store: store, engines: [.push: GatedEngine(gate: gate)])
            try await dispatcher.restore(pageSize: 50)
            #expect(await dispatcher.queuedCount == 220, "220 queued jobs over five pages, the last one short")
            #expect(await dispatcher.runningCount == 0)
            // Quotas count queued and paused jobs: owner 1000 has 77 (4 of them paused), so 23 more fit in 100.
            guard case .success = await dispatcher.reserve(23, for: OwnerID(1000), limit: 100) else {
                Issue.record("owner 1000 should have room for 23 more")
                return
            }
            guard case .failure(let exceeded) = await dispatcher.reserve(1, for: OwnerID(1000), limit: 100) else {
                Issue.record("owner 1000 is at its quota of 100")
                return
            }
            #expect(exceeded.unfinished == 100)

            // The service manager's status line names conditions of the world that hold jobs; a
            // limit such as max_concurrent = 0 is not one.
            #expect(await dispatcher.statusLine() == "0 running, 220 queued")
            await dispatcher.update(network: NetworkState(connectivity: .offline, source: "test"))
            #expect(await dispatcher.statusLine() == "0 running, 220 queued; holding 220: offline (220)")
        }
    }
}
