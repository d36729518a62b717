import Foundation
import LullCore
import LullStore
import Testing

/// `requires_idle` survives a restart: in the spec and in the scheduling column the queue is
/// read back from.
@Suite struct RequiresIdleStoreTests {
    @Test func aQueuedJobThatRequiresIdleReadsBackRequiringIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lull-idle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("lull.sqlite").path
        func spec(_ n: Int, _ constraints: JobConstraints?) -> JobSpec {
            JobSpec(.fetch(FetchJob(url: "http://h/\(n)", destination: "/tmp/\(n)")), constraints: constraints)
        }
        let specs = [
            spec(1, JobConstraints(requiresIdle: true)),
            spec(2, JobConstraints(requiresAC: true)),
            spec(3, nil),
        ]
        let inserted = try await SQLiteJobStore(path: path).insert(
            specs.map { NewJob(owner: OwnerID(1000), spec: $0, createdAt: Date(timeIntervalSince1970: 1_800_000_000)) }
        )

        let reopened = try SQLiteJobStore(path: path)
        let queued = try await reopened.queuedJobs(after: nil, limit: 10)
        #expect(queued.map(\.constraints.requiresIdle) == [true, false, false])
        #expect(queued[1].constraints.requiresAC)
        for (job, spec) in zip(inserted, specs) {
            #expect(try await reopened.job(job.id)?.spec == spec)
        }
    }
}
