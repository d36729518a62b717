import Foundation
import LullAPI
import LullCore
import Synchronization
import Testing

@testable import LullDaemon

/// An engine whose attempts are processes that run until cancelled, and can be frozen.
final class HoldingEngine: FreezableEngine {
    let freezes = Mutex(0)
    let cancelled = Mutex(0)

    func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        let (never, _) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}
        cancelled.withLock { $0 += 1 }
        throw CancellationError()
    }
    func freeze(_ id: JobID) async -> Bool {
        freezes.withLock { $0 += 1 }
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
}
