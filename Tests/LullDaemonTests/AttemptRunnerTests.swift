import Foundation
import Logging
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Synchronization
import Testing

@testable import LullDaemon

/// An engine whose attempt is a script the test writes.
struct ScriptedEngine: TransferEngine {
    let script: @Sendable (TransferContext) async throws -> JobResult

    func run(_ job: Job, context: TransferContext) async throws -> JobResult { try await script(context) }
}

/// One attempt, run without the dispatcher: what the runner stores and what it reports back.
@Suite struct AttemptRunnerTests {
    /// Runs an attempt of a stored, started push job with `script` as its engine.
    func attempt(
        _ script: @escaping @Sendable (TransferContext) async throws -> JobResult,
        check: (SQLiteJobStore, Job, AttemptOutcome, () -> [TransferProgress]) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory("runner") { directory in
            let store = try SQLiteJobStore(path: directory + "/lull.sqlite")
            let spec = try JobSubmission(kind: .push, url: "http://127.0.0.1:9/x", body: "x").spec().prepared()
            let queued = try await store.insert([NewJob(owner: OwnerID(1000), spec: spec, createdAt: Date())])[0]
            let start = JobUpdate(id: queued.id, from: [.queued], to: .running, event: .started, time: Date())
            guard case .applied(let job) = try await store.apply(start) else {
                Issue.record("the job did not start")
                return
            }
            let runner = AttemptRunner(
                engine: ScriptedEngine(script: script),
                store: store,
                clock: SystemClock(),
                sleeper: TaskSleeper(),
                progressInterval: 0,
                metrics: DaemonMetrics(),
                logger: Logger(label: "lull.test")
            )
            let meter = AttemptMeter(
                job: job,
                accountant: JobAccountant(),
                network: NetworkState(connectivity: .online, source: "test"),
                metrics: DaemonMetrics()
            )
            let heard = Mutex<[TransferProgress]>([])
            // A task of its own, as in the dispatcher: cancelling it leaves the test running.
            let outcome = await Task {
                await runner.run(job, meter: meter) { progress in heard.withLock { $0.append(progress) } }
            }.value
            try await check(store, job, outcome) { heard.withLock { $0 } }
        }
    }

    @Test func progressAndResumePointsAreStoredAndTheResultComesBack() async throws {
        try await attempt({ context in
            context.progress(TransferProgress(bytesDone: 10, bytesTotal: 20))
            await context.checkpoint(ResumeState(offset: 10))
            return JobResult(httpStatus: 201)
        }) { store, job, outcome, heard in
            #expect(outcome == .succeeded(JobResult(httpStatus: 201)))
            try await waitUntil("the progress report to be stored") {
                try await store.job(job.id)?.progress?.bytesDone == 10
            }
            #expect(heard().map(\.bytesDone) == [10], "the dispatcher hears a report before it is stored")
            #expect(try await store.job(job.id)?.resume?.offset == 10)
        }
    }

    @Test func aJobFailureComesBackAsItIsAndAnyOtherErrorAsAnInternalOne() async throws {
        let refused = JobFailure(code: "http_403", message: "forbidden", retryable: false)
        try await attempt({ _ in throw refused }) { _, _, outcome, _ in
            #expect(outcome == .failed(refused))
        }
        struct Odd: Error {}
        try await attempt({ _ in throw Odd() }) { _, _, outcome, _ in
            guard case .failed(let failure) = outcome else {
                Issue.record("an unexpected error is a failure")
                return
            }
            #expect(failure.code == "internal_error")
            #expect(!failure.retryable)
        }
    }

    @Test func aCancelledAttemptIsInterruptedNotFailed() async throws {
        try await attempt({ _ in
            withUnsafeCurrentTask { $0?.cancel() }
            throw CancellationError()
        }) { _, _, outcome, _ in
            #expect(outcome == .interrupted)
        }
    }
}
