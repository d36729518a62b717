import Foundation
import Logging
import LullAPI
import LullCore
import LullStore
import Testing

@testable import LullDaemon

/// An engine that moves `bytes` in one report, then fails the attempt for a retry.
struct MovesThenFails: TransferEngine {
    let bytes: Int64

    func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        context.progress(TransferProgress(bytesDone: bytes, bytesTotal: nil))
        throw JobFailure(code: "connection_reset", message: "the test's server went away", retryable: true)
    }
}

/// What an attempt's end leaves in the dispatcher's accounts. Metered bytes count against the
/// daily budgets however the attempt ends: those moved since the last progress report that went
/// out are charged when it ends in a retry, not only when it succeeds or fails for good. And a
/// job that will not run again leaves no totals behind.
@Suite struct AttemptEndAccountingTests {
    @Test func bytesOfAnAttemptThatRetriesAreCharged() async throws {
        let temporary = try TemporaryStore("metered")
        defer { temporary.remove() }
        let store = temporary.store
        var policy = SchedulingPolicy.defaults
        let utility = policy.classes.firstIndex { $0.name == "utility" }!
        policy.classes[utility].meteredBytesPerDay = 1 << 20
        var world = WorldSnapshot.assumed
        world.network = NetworkState(connectivity: .online, metered: true, source: "test")
        world.power = PowerState(onBattery: false, source: "test")
        let dispatcher = Dispatcher.forTest(
            store: store,
            engines: [.push: MovesThenFails(bytes: 2 << 20)],
            policy: policy,
            world: world,
            // Longer than the test: no report goes out while the attempt runs.
            progressInterval: 3600
        )
        func submit() async throws -> JobID {
            var submission = JobSubmission(kind: .push, url: "http://127.0.0.1:9/x", body: "x")
            submission.jobClass = "utility"
            let jobs = try await store.insert([
                NewJob(owner: OwnerID(1000), spec: try submission.spec().prepared(), createdAt: Date())
            ])
            await dispatcher.enqueue(jobs)
            return jobs[0].id
        }
        let first = try await submit()
        try await waitUntil("the first attempt to end in a retry") {
            let job = try await store.job(first)
            return job?.attempts == 1 && job?.state == .queued
        }
        let second = try await submit()
        let held = await dispatcher.machine.heldByCondition(now: await dispatcher.timeline.now())
        #expect(held[.quota, default: 0] >= 1, "the second job waits for the budget: \(held)")
        #expect(try await store.job(second)?.state == .queued)
        await dispatcher.drain()
    }

    /// A job that retried, then expired waiting for its next attempt, leaves nothing behind
    /// in the accounts that carry totals from one attempt to the next.
    @Test func anExpiredJobLeavesNoCarriedOverTotals() async throws {
        let temporary = try TemporaryStore("expire")
        defer { temporary.remove() }
        let store = temporary.store
        let dispatcher = Dispatcher.forTest(store: store, engines: [.push: MovesThenFails(bytes: 10)])
        var submission = JobSubmission(kind: .push, url: "http://127.0.0.1:9/x", body: "x")
        // utility retries after 10 s at the earliest, well past the deadline.
        submission.jobClass = "utility"
        submission.deadline = Date().addingTimeInterval(1)
        submission.onDeadline = .expire
        let jobs = try await store.insert([
            NewJob(owner: OwnerID(1000), spec: try submission.spec().prepared(), createdAt: Date())
        ])
        await dispatcher.enqueue(jobs)
        try await waitUntil("the job to retry") { try await store.job(jobs[0].id)?.attempts == 1 }
        try await waitUntil("the job to expire") { try await store.job(jobs[0].id)?.state == .expired }
        try await waitUntil("its totals forgotten") { await dispatcher.accounts.carriedOver == 0 }
        await dispatcher.drain()
    }
}
