import Foundation
import LullAPI
import LullCore
import Synchronization
import Testing

@testable import LullDaemon

/// An engine whose attempts are processes that run until cancelled, and can be frozen;
/// `duringFreeze` runs while a freeze is under way.
final class HoldingEngine: FreezableEngine {
    let freezes = Mutex(0)
    let cancelled = Mutex(0)
    let duringFreeze: @Sendable () async -> Void

    init(duringFreeze: @escaping @Sendable () async -> Void = {}) {
        self.duringFreeze = duringFreeze
    }

    func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        let (never, _) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}
        cancelled.withLock { $0 += 1 }
        throw CancellationError()
    }
    func freeze(_ id: JobID) async -> Bool {
        freezes.withLock { $0 += 1 }
        await duringFreeze()
        return true
    }
    func thaw(_ id: JobID) async -> Bool { true }
}

/// A pause written against a job that was queued when the client looked, and started before the
/// pause reached the store: the store refuses it (the job is no longer queued) and the dispatcher
/// tries again with the job as it is now. That second try used to take the usual path, ending
/// the command it could have frozen.
@Suite struct PauseConflictTests {
    @Test func aPauseThatFindsTheJobStartedFreezesIt() async throws {
        let temporary = try TemporaryStore("pause-conflict")
        defer { temporary.remove() }
        let engine = HoldingEngine()
        let dispatcher = Dispatcher.forTest(store: temporary.store, engines: [.run: engine])
        let spec = try JobSubmission(kind: .run, url: "", argv: ["true"]).spec().prepared()
        let queued = try await temporary.store.insert([NewJob(owner: OwnerID(getuid()), spec: spec, createdAt: Date())])
        await dispatcher.enqueue(queued)
        try await waitUntil("the job to run") { try await temporary.store.job(queued[0].id)?.state == .running }

        let paused = try await dispatcher.apply(.pause, to: queued[0]).get()
        #expect(paused.state == .paused)
        #expect(engine.freezes.withLock { $0 } == 1, "frozen where it is")
        #expect(engine.cancelled.withLock { $0 } == 0, "the attempt was not ended")
        #expect(await dispatcher.runningCount == 1)
        await dispatcher.drain()
    }

    /// The battery runs out of AC while a pause is freezing a `requires_ac` command, and the
    /// pause then fails (the store cannot write). The stop decided meanwhile was held back for
    /// the pause and, the pause undone, dropped for good: the command ran on, on battery.
    @Test func aStopHeldBackForAPauseThatFailsIsCarriedOut() async throws {
        let temporary = try TemporaryStore("pause-fails")
        defer { temporary.remove() }
        let store = FillableStore(temporary.store)
        let dispatcher = Mutex<Dispatcher?>(nil)
        let engine = HoldingEngine {
            store.full.withLock { $0 = true }
            await dispatcher.withLock { $0 }?.update(power: PowerState(onBattery: true, source: "test"))
        }
        let made = Dispatcher.forTest(store: store, engines: [.run: engine])
        dispatcher.withLock { $0 = made }
        let spec = try JobSubmission(kind: .run, url: "", jobClass: "utility", requiresAC: true, argv: ["true"])
            .spec().prepared()
        let jobs = try await store.insert([NewJob(owner: OwnerID(getuid()), spec: spec, createdAt: Date())])
        await made.enqueue(jobs)
        try await waitUntil("the job to run") { try await store.job(jobs[0].id)?.state == .running }
        let running = try #require(try await store.job(jobs[0].id))

        await #expect(throws: (any Error).self) { _ = try await made.apply(.pause, to: running) }
        store.full.withLock { $0 = false }
        try await waitUntil("the stop to be recorded") { try await store.job(jobs[0].id)?.stops == 1 }
        #expect(engine.cancelled.withLock { $0 } == 1, "the command was ended for the battery")
        await made.drain()
    }
}
