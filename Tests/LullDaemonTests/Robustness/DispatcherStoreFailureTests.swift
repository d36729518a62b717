import Foundation
import Logging
import LullAPI
import LullCore
import LullStore
import Synchronization
import Testing

@testable import LullDaemon

/// A real store that refuses every write while `full` is set, the way a full disk does.
final class FillableStore: JobStore {
    let base: SQLiteJobStore
    let full = Mutex(false)
    let refusals = Mutex(0)

    init(_ base: SQLiteJobStore) { self.base = base }

    private func check() throws {
        if full.withLock({ $0 }) {
            refusals.withLock { $0 += 1 }
            throw StoreFullError(path: "/test/lull.sqlite")
        }
    }

    func insert(_ jobs: [NewJob]) async throws -> [Job] {
        try check()
        return try await base.insert(jobs)
    }
    func apply(_ update: JobUpdate, creating successor: NewJob?) async throws -> (JobUpdateOutcome, successor: Job?) {
        try check()
        return try await base.apply(update, creating: successor)
    }
    func job(_ id: JobID) async throws -> Job? { try await base.job(id) }
    func applyToUnreadable(_ update: JobUpdate) async throws -> UnreadableUpdateOutcome {
        try check()
        return try await base.applyToUnreadable(update)
    }
    func list(_ filter: JobFilter) async throws -> StorePage<StoredJob> { try await base.list(filter) }
    func countsByState(owner: OwnerID?) async throws -> [JobState: Int] { try await base.countsByState(owner: owner) }
    func count(in state: JobState) async throws -> Int { try await base.count(in: state) }
    func countsByClassAndState() async throws -> [JobCountKey: Int] { try await base.countsByClassAndState() }
    func countsByOwner(in states: Set<JobState>) async throws -> [OwnerID: Int] {
        try await base.countsByOwner(in: states)
    }
    func events(after: Int64, owner: OwnerID?, limit: Int) async throws -> StorePage<JobEvent> {
        try await base.events(after: after, owner: owner, limit: limit)
    }
    func requeueInterrupted(at time: Date) async throws -> [JobID] {
        try check()
        return try await base.requeueInterrupted(at: time)
    }
    func queuedJobs(after: JobID?, limit: Int) async throws -> [QueuedJob] {
        try await base.queuedJobs(after: after, limit: limit)
    }
    func pendingCompletionHooks() async throws -> [StoredJob] { try await base.pendingCompletionHooks() }
    func completionHookRan(_ id: JobID, at time: Date) async throws {
        try check()
        try await base.completionHookRan(id, at: time)
    }
    func fetchValidators(owner: OwnerID, url: String, destination: String) async throws -> FetchValidators? {
        try await base.fetchValidators(owner: owner, url: url, destination: destination)
    }
}

/// An engine that finishes when told to.
struct GatedEngine: TransferEngine {
    let gate: AsyncStream<Void>

    func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        for await _ in gate { break }
        return JobResult(httpStatus: 200)
    }
}

/// The dispatcher must not lose a job's outcome, or the job itself, when the store cannot write
/// for a while (a full disk): the change waits and is written once the store recovers.
@Suite(.serialized) struct DispatcherStoreFailureTests {
    @Test func outcomesWaitForTheStoreInsteadOfBeingLost() async throws {
        let temporary = try TemporaryStore("full")
        defer { temporary.remove() }
        let store = FillableStore(temporary.store)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let dispatcher = Dispatcher.forTest(store: store, engines: [.push: GatedEngine(gate: gate)])
        let spec = try JobSubmission(kind: .push, url: "http://127.0.0.1:9/x", body: "x").spec().prepared()
        let jobs = try await store.insert([NewJob(owner: OwnerID(0), spec: spec, createdAt: Date())])
        await dispatcher.enqueue(jobs)
        try await waitUntil("the job to be running") { try await store.job(jobs[0].id)?.state == .running }

        // The disk fills; the transfer ends; its outcome cannot be written yet.
        store.full.withLock { $0 = true }
        open.yield()
        try await waitUntil("two refused writes") { store.refusals.withLock { $0 } >= 2 }
        #expect(try await store.job(jobs[0].id)?.state == .running)
        #expect(await dispatcher.runningCount == 1, "the job keeps its slot while its outcome waits")

        // Space comes back: the outcome is written, nothing was lost.
        store.full.withLock { $0 = false }
        try await waitUntil("the outcome to be recorded") { try await store.job(jobs[0].id)?.state == .succeeded }
        try await waitUntil("the slot to be released") { await dispatcher.runningCount == 0 }
        await dispatcher.drain()
    }

    /// A suspend cancels an attempt whose start is still waiting for the store: the start keeps
    /// trying, so the job is neither dropped from the queue nor left `running` until a restart.
    @Test func anAttemptCancelledWhileItsStartWaitsForTheStoreIsNotLost() async throws {
        let temporary = try TemporaryStore("full")
        defer { temporary.remove() }
        let store = FillableStore(temporary.store)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let dispatcher = Dispatcher.forTest(store: store, engines: [.push: GatedEngine(gate: gate)])
        let spec = try JobSubmission(kind: .push, url: "http://127.0.0.1:9/x", body: "x").spec().prepared()
        let jobs = try await store.insert([NewJob(owner: OwnerID(0), spec: spec, createdAt: Date())])
        store.full.withLock { $0 = true }
        await dispatcher.enqueue(jobs)
        try await waitUntil("two refused starts") { store.refusals.withLock { $0 } >= 2 }

        let sleeping = Task { await dispatcher.checkpointForSleep() }
        let refused = store.refusals.withLock { $0 }
        try await waitUntil("the start to be tried again after the cancellation") {
            store.refusals.withLock { $0 } > refused + 1
        }
        store.full.withLock { $0 = false }
        await sleeping.value
        await dispatcher.resumeAfterSleep()
        open.yield()
        open.yield()
        try await waitUntil("the job to run to its end") { try await store.job(jobs[0].id)?.state == .succeeded }
        await dispatcher.drain()
    }
}
