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
    private let retryPolicy: RetryPolicy
    private let random: @Sendable () -> Double
    private var ready = ReadyQueue()
    private var backoff = BackoffQueue()
    private var timer: Task<Void, Never>?
    private var running: [JobID: Task<Void, Never>] = [:]
    private var accepting = true
    /// Least time between two stored progress updates of one job.
    private let progressInterval: TimeInterval

    init(
        store: any JobStore, engines: [JobKind: any TransferEngine], scheduler: Scheduler,
        retryPolicy: RetryPolicy = .standard, progressInterval: TimeInterval = 1, clock: any LullClock,
        logger: Logger, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.progressInterval = progressInterval
        self.store = store
        self.engines = engines
        self.scheduler = scheduler
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.logger = logger
        self.random = random
    }

    var runningCount: Int { running.count }
    var readyCount: Int { ready.count }

    /// Loads what a previous run left behind: interrupted jobs go back to the queue.
    func restore() async throws {
        let requeued = try await store.requeueInterrupted(at: clock.now())
        if !requeued.isEmpty {
            logger.notice("requeued jobs interrupted by the previous stop", metadata: ["count": "\(requeued.count)"])
        }
        let now = clock.now()
        for entry in try await store.queuedJobs() {
            if let retryAt = entry.retryAt, retryAt > now {
                backoff.insert(entry.id, at: retryAt)
            } else {
                ready.insert(entry.id)
            }
        }
        armTimer()
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
                backoff.remove(updated.id)
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
        timer?.cancel()
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
        logger.info("job started", metadata: ["job_id": "\(id)", "job_kind": "\(job.spec.kind.rawValue)", "attempt": "\(job.attempts)"])
        let reporter = ProgressReporter(interval: progressInterval, clock: clock) { [weak self] progress in
            await self?.record(progress, of: id)
        }
        var validators: FetchValidators?
        if job.spec.kind == .fetch, let destination = job.spec.destination {
            validators = try? await store.fetchValidators(owner: job.owner, url: job.spec.url, destination: destination)
        }
        let context = TransferContext(
            progress: { reporter.report($0) },
            checkpoint: { [weak self] resume in await self?.checkpoint(resume, of: id) },
            validators: validators)
        do {
            let result = try await engine.run(job, context: context)
            await finish(job, result: result)
        } catch {
            if Task.isCancelled {
                await interrupted(job)
                return
            }
            let failure = error as? JobFailure ?? JobFailure(
                code: "internal_error", message: "unexpected error: \(error)", retryable: false)
            let policy = retryPolicy.overridden(by: job.spec.retry)
            if let delay = policy.delay(afterAttempt: job.attempts, failure: failure, unitRandom: random()) {
                await retry(job, after: failure, in: delay)
            } else {
                await finish(job, failure: failure)
            }
        }
    }

    /// Records how to resume; the event says from where, so a watcher knows what a crash would cost.
    private func checkpoint(_ resume: ResumeState, of id: JobID) async {
        let update = JobUpdate(
            id: id, from: [.running], to: .running, event: .progress, time: clock.now(),
            message: "resumable from byte \(resume.offset)", resume: resume)
        _ = try? await store.apply(update)
    }

    private func retry(_ job: Job, after failure: JobFailure, in delay: TimeInterval) async {
        let retryAt = clock.now().addingTimeInterval(delay)
        let update = JobUpdate(
            id: job.id, from: [.running], to: .queued, event: .retrying, time: clock.now(), failure: failure,
            message: "attempt \(job.attempts) failed (\(failure.code)); retrying in \(String(format: "%.1f", delay)) s",
            retryAt: retryAt)
        guard case .applied = try? await store.apply(update) else { return }
        logger.notice(
            "job will be retried",
            metadata: ["job_id": "\(job.id)", "error_code": "\(failure.code)", "attempt": "\(job.attempts)", "delay_s": "\(delay)"])
        backoff.insert(job.id, at: retryAt)
        armTimer()
    }

    /// One timer for the earliest backoff end; no polling.
    private func armTimer() {
        timer?.cancel()
        guard accepting, let next = backoff.earliest else { return }
        let wait = max(0, next.timeIntervalSince(clock.now()))
        timer = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up))))
            guard !Task.isCancelled else { return }
            await self?.timerFired()
        }
    }

    private func timerFired() {
        for id in backoff.popDue(at: clock.now()) { ready.insert(id) }
        armTimer()
        pump()
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
