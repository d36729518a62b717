import Foundation
import Logging
import LullCore

/// Owns the live side of the queue: the scheduler's state, the world as last sensed, one timer
/// for the scheduler's next wake-up, and the tasks that run jobs. Every state change goes to the
/// store first; memory follows what the store says.
actor Dispatcher {
    private let store: any JobStore
    private let engines: [JobKind: any TransferEngine]
    /// Wall-clock time, for what is recorded (event times, retry times).
    private let clock: any LullClock
    /// Scheduling time: waits are measured on it, so wall-clock jumps do not disturb them.
    private let timeline: SchedulingTimeline
    private let logger: Logger
    private var scheduler: JobScheduler
    private var policy: SchedulingPolicy
    private var world: WorldSnapshot
    private let random: @Sendable () -> Double
    private var timer: Task<Void, Never>?
    private var timerDue: Date?
    private var running: [JobID: Task<Void, Never>] = [:]
    private var accepting = true
    /// Least time between two stored progress updates of one job.
    private let progressInterval: TimeInterval

    init(
        store: any JobStore, engines: [JobKind: any TransferEngine], policy: SchedulingPolicy,
        world: WorldSnapshot = .assumed, progressInterval: TimeInterval = 1, clock: any LullClock,
        monotonic: any MonotonicClock = SystemMonotonicClock(), logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.store = store
        self.engines = engines
        self.policy = policy
        self.scheduler = JobScheduler(policy: policy, localTime: Self.localTime(at: clock.now()))
        self.world = world
        self.progressInterval = progressInterval
        self.clock = clock
        self.timeline = SchedulingTimeline(wall: clock, monotonic: monotonic)
        self.logger = logger
        self.random = random
    }

    var runningCount: Int { running.count }
    var queuedCount: Int { scheduler.queuedCount }
    var currentWorld: WorldSnapshot { world }
    var currentPolicy: SchedulingPolicy { policy }

    /// Loads what a previous run left behind: interrupted jobs go back to the queue.
    func restore() async throws {
        let requeued = try await store.requeueInterrupted(at: clock.now())
        if !requeued.isEmpty {
            logger.notice("requeued jobs interrupted by the previous stop", metadata: ["count": "\(requeued.count)"])
        }
        for job in try await store.queuedJobs() { scheduler.enqueue(timeline.place(job), now: timeline.now()) }
        pump()
    }

    /// Newly stored jobs join the queue.
    func enqueue(_ jobs: [Job]) {
        let now = timeline.now()
        for job in jobs { scheduler.enqueue(timeline.place(QueuedJob(job)), now: now) }
        pump()
    }

    /// The machine changed: decide again.
    func update(world: WorldSnapshot) {
        guard world != self.world else { return }
        self.world = world
        pump()
    }

    func update(power: PowerState) {
        var next = world
        next.power = power
        update(world: next)
    }

    func update(network: NetworkState) {
        var next = world
        next.network = network
        update(world: next)
    }

    func update(pressure: PressureState) {
        var next = world
        next.pressure = pressure
        update(world: next)
    }

    /// A new policy (reload): the queue is re-evaluated under it.
    func update(policy: SchedulingPolicy) {
        self.policy = policy
        scheduler.updatePolicy(policy, now: timeline.now())
        pump()
    }

    /// Why a queued job is not running now; empty when it is about to start or not queued.
    func waitingReasons(for id: JobID) -> [WaitingReason] {
        scheduler.waitingReasons(for: id, world: world, now: timeline.now())
    }

    /// The scheduler's next wake-up, when one is set.
    var nextCheck: Date? { timerDue.map(timeline.wallTime(of:)) }

    /// What would happen under another world, changing nothing.
    func simulate(_ hypothetical: WorldSnapshot, explainLimit: Int) -> SchedulingSimulation {
        scheduler.simulate(world: hypothetical, now: timeline.now(), explainLimit: explainLimit)
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
                _ = scheduler.remove(updated.id)
                if let task = running[updated.id] {
                    task.cancel()
                    if updated.state == .cancelled { await task.value }
                }
                if updated.state == .cancelled { await engines[updated.spec.kind]?.discardResumeData(of: updated) }
                if updated.state == .queued { scheduler.enqueue(timeline.place(QueuedJob(updated)), now: timeline.now()) }
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

    /// Asks the scheduler what to do now and does it; sets one timer for its next wake-up.
    private func pump() {
        guard accepting else { return }
        let now = timeline.now()
        let decision = scheduler.decide(world: world, now: now)
        for job in decision.start {
            running[job.id] = Task { await self.execute(job.id) }
        }
        for id in decision.expired {
            Task { await self.expire(id) }
        }
        arm(decision.nextWakeup)
    }

    private func arm(_ due: Date?) {
        guard due != timerDue else { return }
        timer?.cancel()
        timerDue = due
        guard let due else { return }
        // Measured on the time line and slept on the monotonic clock: a wall-clock jump moves neither.
        let wait = max(0, due.timeIntervalSince(timeline.now()))
        timer = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up))))
            guard !Task.isCancelled else { return }
            await self?.timerFired()
        }
    }

    private func timerFired() {
        timerDue = nil
        pump()
    }

    private func expire(_ id: JobID) async {
        let update = JobUpdate(
            id: id, from: [.queued], to: .expired, event: .expired, time: clock.now(),
            message: "the deadline passed before the job could start (on_deadline = expire)")
        _ = try? await store.apply(update)
        logger.notice("job expired", metadata: ["job_id": "\(id)"])
    }

    private func execute(_ id: JobID) async {
        defer {
            running[id] = nil
            scheduler.jobFinished(id, at: timeline.now())
            pump()
        }
        let start = JobUpdate(
            id: id, from: [.queued], to: .running, event: .started, time: clock.now(), countsAsAttempt: true)
        // Holding the slot while the store cannot write keeps the job from being forgotten.
        guard case .applied(let job) = await durably(start) else { return }
        guard let engine = engines[job.spec.kind] else {
            await finish(job, failure: JobFailure(
                code: "unsupported_kind", message: "this daemon cannot run \(job.spec.kind.rawValue) jobs",
                retryable: false))
            return
        }
        logger.info(
            "job started",
            metadata: ["job_id": "\(id)", "job_kind": "\(job.spec.kind.rawValue)", "class": "\(job.spec.jobClass)", "attempt": "\(job.attempts)"])
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
            let classRetry = policy.classPolicy(named: job.spec.jobClass)?.retry ?? .standard
            if let delay = classRetry.overridden(by: job.spec.retry).delay(afterAttempt: job.attempts, failure: failure, unitRandom: random()) {
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
        guard case .applied(let updated) = await durably(update) else { return }
        logger.notice(
            "job will be retried",
            metadata: ["job_id": "\(job.id)", "error_code": "\(failure.code)", "attempt": "\(job.attempts)", "delay_s": "\(delay)"])
        scheduler.jobFinished(job.id, at: timeline.now())
        scheduler.enqueue(timeline.place(QueuedJob(updated)), now: timeline.now())
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
        await engines[job.spec.kind]?.discardResumeData(of: job)
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
        _ = await durably(update)
    }

    /// Applies a change of state that must not be lost. When the store cannot write (a full
    /// disk), the change waits in this task and is tried again, with a pause growing to 5 s,
    /// until it is written; nil only when the task is cancelled first (a stop or a command; a
    /// job left `running` is requeued at the next start, as after a crash).
    private func durably(_ update: JobUpdate) async -> JobUpdateOutcome? {
        var pause = Duration.milliseconds(100)
        var failures = 0
        while true {
            do {
                let outcome = try await store.apply(update)
                if failures > 0 {
                    logger.notice("recorded a job change after the store recovered", metadata: ["job_id": "\(update.id)", "tries": "\(failures + 1)"])
                }
                return outcome
            } catch {
                if failures == 0 {
                    logger.error(
                        "could not record a job change; trying again until the store can write",
                        metadata: ["job_id": "\(update.id)", "event": "\(update.event.rawValue)", "error": "\(error)"])
                }
                failures += 1
                do { try await Task.sleep(for: pause) } catch { return nil }
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    /// The local time zone's offset now and at its next change, for class time windows.
    static func localTime(at now: Date) -> LocalTime {
        let zone = TimeZone.current
        var changes: [LocalTime.OffsetChange] = []
        if let next = zone.nextDaylightSavingTimeTransition(after: now) {
            changes.append(.init(at: next, utcOffset: zone.secondsFromGMT(for: next.addingTimeInterval(1))))
        }
        return LocalTime(utcOffset: zone.secondsFromGMT(for: now), changes: changes)
    }
}
