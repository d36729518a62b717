import Foundation
import LullCore
import LullStore
import LullTestSupport
import Testing

/// The writer's WAL is checkpointed by the store's checkpointer thread, not inside commits.
@Suite struct WALCheckpointerTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    /// Small, so that a few hundred commits cross it many times.
    let threshold = 50

    func fetch(_ n: Int) -> NewJob {
        NewJob(
            owner: OwnerID(1000),
            spec: JobSpec(.fetch(FetchJob(url: "http://h/\(n)", destination: "/tmp/\(n)")), label: "wal"),
            createdAt: t0
        )
    }

    /// The most frames the WAL ever held: SQLite reuses the file from the start after a
    /// checkpoint and does not shrink it, so its size is the high-water mark.
    func walHighWaterFrames(_ path: String) throws -> Int {
        let size = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as! Int
        return max(0, (size - 32) / (24 + 4096))
    }

    @Test func checkpointsRunOnTheirOwnThreadAndKeepTheWALSmall() async throws {
        try await withTemporaryDirectory("wal") { directory in
            let path = directory + "/lull.sqlite"
            let store = try SQLiteJobStore(path: path, checkpointThreshold: threshold)
            // One commit at a time (about 7 pages each), then 16 writers at once.
            for n in 0..<300 { _ = try await store.insert([fetch(n)]) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<16 {
                    group.addTask {
                        for n in 0..<20 { _ = try await store.insert([fetch(1_000 + writer * 100 + n)]) }
                    }
                }
                try await group.waitForAll()
            }
            let counts = store.checkpointCounts
            let highWater = try walHighWaterFrames(path)
            // ~4,400 frames went through the WAL. Left to SQLite, it would have grown to its own
            // 1,000-page threshold. Here the writer checkpoints itself at 4 × 50 pages; a pass of
            // the checkpointer's in progress then can let a few more commits through.
            #expect(highWater < 600, "WAL high-water mark: \(highWater) frames; checkpoints: \(counts)")
            #expect(counts.background > 0, "no checkpoint ran on the checkpointer's thread: \(counts)")

            // Nothing was lost to a checkpoint racing the writer.
            let reopened = try SQLiteJobStore(path: path, checkpointThreshold: threshold)
            #expect(try await reopened.queuedJobs(after: nil, limit: 10_000).count == 620)
            #expect(try await reopened.integrityCheck() == "ok")
        }
    }
}
