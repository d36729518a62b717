import Foundation
import Logging
import LullCore

/// Owns the live side of the queue: which jobs are ready, which are running, and the tasks that
/// run them. Every state change goes to the store first; memory follows what the store says.
actor Dispatcher {
    private let store: any JobStore
    private let engines: [JobKind: any TransferEngine]
    private let clock: any LullClock
    private let logger: Logger
    private var scheduler: Scheduler
    private var ready = ReadyQueue()
    private var running: [JobID: Task<Void, Never>] = [:]
    private var accepting = true
    /// Least time between two stored progress updates of one job.
    private let progressInterval: TimeInterval = 1

    init(
        store: any JobStore, engines: [JobKind: any TransferEngine], scheduler: Scheduler,
        clock: any LullClock, logger: Logger
    ) {
        self.store = store
        self.engines = engines
        self.scheduler = scheduler
        self.clock = clock
        self.logger = logger
    }

    var runningCount: Int { running.count }
    var readyCount: Int { ready.count }

    /// Loads what a previous run left behind: interrupted jobs go back to the queue.
    func restore() async throws {
        let requeued = try await store.requeueInterrupted(at: clock.now())
        if !requeued.isEmpty {
            logger.notice("requeued jobs interrupted by the previous stop", metadata: ["count": "\(requeued.count)"])
        }
        ready = ReadyQueue(try await store.queuedJobIDs())
        pump()
    }

    /// Newly stored jobs become ready.
    func enqueue(_ ids: [JobID]) {
        for id in ids { ready.insert(id) }
        pump()
    }

    /// Applies a person's command. The store decides; memory and running tasks follow.
    func apply(_ command: JobCommand, to job: Job) async throws -> Result<Job, JobCommandRefusal> {
        var current = job
        for _ in 0..<3 {
            let target: JobState
            switch command.target(from: current.state) {
            case .success(let state): target = state
            case .failure(let refusal): return .failure(refusal)
            }
            let update = JobUpdate(
                id: current.id, from: [current.state], to: target, event: command.eventType, time: clock.now())
            switch try await store.apply(update) {
            case .applied(let updated):
                ready.remove(updated.id)
                running[updated.id]?.cancel()
                if updated.state == .queued { ready.insert(updated.id) }
                pump()
                return .success(updated)
            case .conflict(let latest):
                current = latest
            case .notFound:
                return .failure(JobCommandRefusal(command: command, state: current.state))
            }
        }
        return .failure(JobCommandRefusal(command: command, state: current.state))
    }

    /// Stops starting jobs and interrupts running ones so they go back to the queue.
    func drain() async {
        accepting = false
        let tasks = Array(running.values)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private func pump() {
        guard accepting else { return }
        for id in scheduler.jobsToStart(from: &ready, running: running.count) {
            running[id] = Task { await self.execute(id) }
        }
    }

    private func execute(_ id: JobID) async {
        defer {
            running[id] = nil
            pump()
        }
        let job: Job
        do {
            let start = JobUpdate(
                id: id, from: [.queued], to: .running, event: .started, time: clock.now(), countsAsAttempt: true)
            guard case .applied(let started) = try await store.apply(start) else { return }
            job = started
        } catch {
            logger.error("could not mark job running", metadata: ["job_id": "\(id)", "error": "\(error)"])
            return
        }
        guard let engine = engines[job.spec.kind] else {
            await finish(job, failure: JobFailure(
                code: "unsupported_kind", message: "this daemon cannot run \(job.spec.kind.rawValue) jobs yet",
                retryable: false))
            return
        }
        logger.info("job started", metadata: ["job_id": "\(id)", "job_kind": "\(job.spec.kind.rawValue)"])
        let reporter = ProgressReporter(interval: progressInterval, clock: clock) { [weak self] progress in
            await self?.record(progress, of: id)
        }
        do {
            let result = try await engine.run(job) { progress in reporter.report(progress) }
            await finish(job, result: result)
        } catch {
            if Task.isCancelled {
                await interrupted(job)
            } else {
                await finish(job, failure: error as? JobFailure ?? JobFailure(
                    code: "internal_error", message: "unexpected error: \(error)", retryable: false))
            }
        }
    }

    private func record(_ progress: TransferProgress, of id: JobID) async {
        let update = JobUpdate(
            id: id, from: [.running], to: .running, event: .progress, time: clock.now(), progress: progress)
        _ = try? await store.apply(update)
    }

    private func finish(_ job: Job, result: JobResult) async {
        let update = JobUpdate(
            id: job.id, from: [.running], to: .succeeded, event: .succeeded, time: clock.now(),
            progress: result.bytes.map { TransferProgress(bytesDone: $0, bytesTotal: $0) }, result: result)
        await store(update, for: job)
        logger.info("job succeeded", metadata: ["job_id": "\(job.id)", "bytes": "\(result.bytes ?? 0)"])
    }

    private func finish(_ job: Job, failure: JobFailure) async {
        let update = JobUpdate(
            id: job.id, from: [.running], to: .failed, event: .failed, time: clock.now(), failure: failure)
        await store(update, for: job)
        logger.warning(
            "job failed", metadata: ["job_id": "\(job.id)", "error_code": "\(failure.code)", "error": "\(failure.message)"])
    }

    /// The task was cancelled: by a command (already recorded) or by a stop (back to the queue).
    private func interrupted(_ job: Job) async {
        guard !accepting else { return }
        let update = JobUpdate(
            id: job.id, from: [.running], to: .queued, event: .requeued, time: clock.now(),
            message: "the daemon is stopping; the job resumes when it starts again")
        await store(update, for: job)
    }

    private func store(_ update: JobUpdate, for job: Job) async {
        do {
            _ = try await store.apply(update)
        } catch {
            logger.error("could not record job outcome", metadata: ["job_id": "\(job.id)", "error": "\(error)"])
        }
    }
}
