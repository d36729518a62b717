import Foundation
import Logging
import LullCore
import LullSensors

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
    private let pressure: any PressureGauge
    /// When `world.pressure` was last read (by the gauge or the sampler).
    private var pressureReadAt: Date?
    private let metrics: DaemonMetrics
    /// Per running job: what its attempt moves.
    private var meters: [JobID: AttemptMeter] = [:]
    /// Each running job's last progress report with its rate, which the store does not keep:
    /// a job's view shows rate and time left while it runs.
    private var reportedProgress: [JobID: (progress: TransferProgress, at: Date)] = [:]
    /// Accounting of jobs between attempts (a retry carries on counting).
    private var accountants: [JobID: JobAccountant] = [:]
    /// The local time rules know one daylight-saving change ahead; past it they are read again.
    private var localTimeKnownUntil: Date
    /// Unfinished jobs (queued, paused, running) per owner, for `max_queued_per_owner`.
    private var unfinishedByOwner: [OwnerID: Int] = [:]
    private var timer: Task<Void, Never>?
    private var timerDue: Date?
    private var running: [JobID: Task<Void, Never>] = [:]
    private var mode = Mode.accepting
    /// Starts the unit a job names in `on_complete_unit` once the job has ended.
    private let hooks: CompletionHooks?
    /// Told whenever the queue or the running set may have changed (the service STATUS line).
    private var statusObserver: (@Sendable () -> Void)?
    private var heartbeat: Task<Void, Never>?

    /// Whether new jobs start, and why not.
    private enum Mode {
        case accepting
        /// The queue is being read back from the store: a sensor change must not start jobs
        /// while only part of it is loaded (lower-priority ones could go ahead of unread ones).
        case restoring
        /// The machine is about to sleep: running transfers were checkpointed and wait in the queue.
        case sleeping
        /// The daemon is stopping.
        case stopping
    }
    /// Least time between two stored progress updates of one job.
    private let progressInterval: TimeInterval
    /// How the timer, heartbeat and store retries wait (never `Task.sleep`: see `Sleeper`).
    private let sleeper: any Sleeper

    init(
        store: any JobStore,
        engines: [JobKind: any TransferEngine],
        policy: SchedulingPolicy,
        world: WorldSnapshot = .assumed,
        pressure: any PressureGauge,
        metrics: DaemonMetrics,
        progressInterval: TimeInterval = 1,
        clock: any LullClock,
        monotonic: any MonotonicClock = SystemMonotonicClock(),
        sleeper: any Sleeper,
        logger: Logger,
        hooks: CompletionHooks? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.hooks = hooks
        self.store = store
        self.engines = engines
        self.policy = policy
        let (localTime, knownUntil) = Self.localTime(at: clock.now())
        self.scheduler = JobScheduler(policy: policy, localTime: localTime)
        self.localTimeKnownUntil = knownUntil
        self.world = world
        self.progressInterval = progressInterval
        self.clock = clock
        self.sleeper = sleeper
        self.timeline = SchedulingTimeline(wall: clock, monotonic: monotonic)
        self.logger = logger
        self.random = random
        self.pressure = pressure
        self.metrics = metrics
    }

    var runningCount: Int { running.count }

    /// Moves whenever a restore places jobs or an attempt ends: how a stop or start-up shows
    /// the service manager that it is not hung.
    private(set) var progressTicks = 0
    var queuedCount: Int { scheduler.queuedCount }
    var currentWorld: WorldSnapshot { world }
    var currentPolicy: SchedulingPolicy { policy }
    var schedulingStatistics: SchedulingStatistics { scheduler.statistics }

    /// Loads what a previous run left behind: interrupted jobs go back to the queue.
    /// - Parameter pageSize: queued jobs read from the store at a time.
    func restore(pageSize: Int = 50_000) async throws {
        mode = .restoring
        // A stop that came in meanwhile keeps its mode; otherwise start accepting, even on an error.
        defer { if mode == .restoring { mode = .accepting } }
        let requeued = try await store.requeueInterrupted(at: clock.now())
        progressTicks += 1
        if !requeued.isEmpty {
            logger.notice(
                "requeued \(requeued.count) jobs interrupted by the previous stop",
                metadata: ["count": "\(requeued.count)"]
            )
        }
        // Read before anything starts, so a job that ends from now on is not in this list.
        let pendingHooks = await hooks?.pending() ?? []
        var unfinished = try await store.countsByOwner(in: [.paused, .running])
        // Page by page, the next page read (on a store reader thread) while this one goes into
        // the scheduler (on this actor): with a million queued jobs the two take about as long.
        let store = self.store
        scheduler.reserveCapacity(try await store.count(in: .queued))
        var page = try await store.queuedJobs(after: nil, limit: pageSize)
        while let last = page.last {
            // Detached, so it does not wait for this actor; and the loop is yielded now and then,
            // because NIO runs a task started from one of its threads on that same thread: the
            // read only gets going (on a store reader thread) once this loop lets it start.
            let next =
                page.count < pageSize
                ? nil : Task.detached { try await store.queuedJobs(after: last.id, limit: pageSize) }
            let now = timeline.now()
            for (index, job) in timeline.place(page).enumerated() {
                if index % 10_000 == 0 {
                    progressTicks += 1
                    await Task.yield()
                }
                scheduler.enqueue(job, now: now)
                unfinished[job.owner, default: 0] += 1
            }
            page = try await next?.value ?? []
        }
        unfinishedByOwner = unfinished
        mode = mode == .restoring ? .accepting : mode
        pump()
        if let hooks, !pendingHooks.isEmpty {
            Task { for job in pendingHooks { await hooks.run(for: job) } }
        }
    }

    /// Calls `observer` after every change that may alter the service's status line.
    func observeStatus(_ observer: @escaping @Sendable () -> Void) {
        statusObserver = observer
        observer()
    }

    /// Calls `beat` every `interval` from this actor: if the dispatcher hangs, the beats stop
    /// and the service manager's watchdog restarts the service.
    func startHeartbeat(every interval: Duration, _ beat: @escaping @Sendable () -> Void) {
        heartbeat?.cancel()
        heartbeat = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                await self.beat(beat)
                try? await self.sleeper.sleep(for: interval)
            }
        }
    }

    private func beat(_ beat: @Sendable () -> Void) {
        beat()
    }

    /// One line for the service manager: "3 running, 41 queued; holding 12: on battery (12)",
    /// naming the two conditions that hold the most jobs.
    func statusLine() -> String {
        var line = "\(running.count) running, \(scheduler.queuedCount) queued"
        switch mode {
        case .accepting: break
        case .restoring: return line + "; loading the queue"
        case .sleeping: return line + "; transfers checkpointed for sleep"
        case .stopping: return line + "; stopping"
        }
        guard scheduler.queuedCount > 0 else { return line }
        let counts = scheduler.heldByCondition(world: world, now: timeline.now())
        let held = counts.values.reduce(0, +)
        guard held > 0 else { return line }
        let top = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.rawValue < $1.key.rawValue }
            .prefix(2)
        line += "; holding \(held): " + top.map { "\(Self.words($0.key)) (\($0.value))" }.joined(separator: ", ")
        return line
    }

    private static func words(_ code: WaitingReason.Code) -> String {
        switch code {
        case .onBattery: "on battery"
        case .batteryBelow: "battery low"
        case .metered: "metered network"
        case .cellular: "cellular network"
        case .offline: "offline"
        case .cpuPressure: "CPU pressure"
        case .memoryPressure: "memory pressure"
        case .outsideWindow: "outside time window"
        case .notBefore: "not before"
        case .backoff: "retry backoff"
        case .classFull, .hostFull, .kindFull, .ownerFull, .globalFull: "concurrency limit"
        case .quota: "metered quota"
        case .paused: "paused"
        case .coalescing: "waiting to share a link"
        }
    }

    /// Claims room for `count` new jobs of `owner` under `limit` before they are stored; the
    /// claim becomes the jobs' count once they are, or is given back with `release`. Root's
    /// jobs are not limited.
    func reserve(_ count: Int, for owner: OwnerID, limit: Int) -> Result<Void, OwnerQuotaExceeded> {
        let current = unfinishedByOwner[owner, default: 0]
        if owner.rawValue != 0, current + count > limit {
            return .failure(OwnerQuotaExceeded(owner: owner, unfinished: current, asked: count, limit: limit))
        }
        unfinishedByOwner[owner] = current + count
        return .success(())
    }

    func release(_ count: Int, for owner: OwnerID) {
        let left = unfinishedByOwner[owner, default: 0] - count
        unfinishedByOwner[owner] = left > 0 ? left : nil
    }

    /// Newly stored jobs join the queue. Returns why each still waits (empty: it starts now), so
    /// the submission's answer costs no second visit to the dispatcher.
    @discardableResult
    func enqueue(_ jobs: [Job]) -> [[WaitingReason]] {
        let now = timeline.now()
        for job in jobs { scheduler.enqueue(timeline.place(QueuedJob(job)), now: now) }
        pump()
        return jobs.map { scheduler.waitingReasons(for: $0.id, world: world, now: now) }
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
        for meter in meters.values { meter.networkChanged(network) }
        var next = world
        next.network = network
        update(world: next)
    }

    func update(pressure: PressureState) {
        pressureReadAt = clock.now()
        var next = world
        next.pressure = pressure
        update(world: next)
    }

    /// A new policy (reload): the queue is re-evaluated under it, and the local time zone is
    /// read again (an admin who moved the machine to another zone reloads).
    func update(policy: SchedulingPolicy) {
        self.policy = policy
        refreshLocalTime(at: clock.now())
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
    func simulate(_ hypothetical: WorldSnapshot, explainLimit: Int, owner: OwnerID?) -> SchedulingSimulation {
        scheduler.simulate(world: hypothetical, now: timeline.now(), explainLimit: explainLimit, owner: owner)
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
                id: current.id,
                from: [current.state],
                to: target,
                event: command.eventType,
                time: clock.now()
            )
            switch try await store.apply(update) {
            case .applied(let updated):
                if updated.state.isTerminal { release(1, for: updated.owner) }
                _ = scheduler.remove(updated.id)
                if let task = running[updated.id] {
                    // Wait for the attempt to wind down, whatever the command: a resume that
                    // comes while a paused attempt still runs would otherwise start a second
                    // copy beside it, and the first one's end would then clear the second's slot.
                    task.cancel()
                    await task.value
                }
                if updated.state == .cancelled {
                    accountants[updated.id] = nil
                    metrics.jobFinished(kind: updated.spec.kind, outcome: "cancelled", reason: nil)
                    await engines[updated.spec.kind]?.discardResumeData(of: updated)
                    logger.info("\(JobLogLine.name(updated)) cancelled", metadata: Self.metadata(updated))
                    ended(updated)
                }
                if updated.state == .queued {
                    scheduler.enqueue(timeline.place(QueuedJob(updated)), now: timeline.now())
                }
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
        mode = .stopping
        heartbeat?.cancel()
        await interruptRunning()
    }

    /// The machine is about to sleep: checkpoint running transfers the way a stop does (back to
    /// the queue with their resume data) and start nothing until `resumeAfterSleep()`.
    func checkpointForSleep() async {
        guard mode == .accepting else { return }
        mode = .sleeping
        await interruptRunning()
        statusObserver?()
        logger.notice(
            "transfers checkpointed for sleep; \(scheduler.queuedCount) jobs queued",
            metadata: ["queued": "\(scheduler.queuedCount)"]
        )
    }

    /// The machine woke up: the world and the clock may have changed, so decide again.
    func resumeAfterSleep() {
        guard mode == .sleeping else { return }
        mode = .accepting
        logger.notice(
            "resumed after sleep; \(scheduler.queuedCount) jobs queued",
            metadata: ["queued": "\(scheduler.queuedCount)"]
        )
        pump()
    }

    private func interruptRunning() async {
        timer?.cancel()
        timer = nil
        timerDue = nil
        let tasks = Array(running.values)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Asks the scheduler what to do now and does it; sets one timer for its next wake-up.
    private func pump() {
        statusObserver?()
        guard mode == .accepting else { return }
        let now = timeline.now()
        let wallNow = clock.now()
        // Local-time rules follow the wall clock (a daylight-saving change is a wall-clock event).
        if wallNow >= localTimeKnownUntil { refreshLocalTime(at: wallNow) }
        // Pressure is read only when a start hangs on it, and sampled only while it holds jobs.
        // Due timers first, so a job released at this moment is among those it may hold. The
        // cheap staleness test next: while a reading is fresh, no scan of the groups.
        scheduler.advance(to: now)
        if pressureReadAt.map({ wallNow.timeIntervalSince($0) >= Self.pressureMaxAge }) ?? true,
            scheduler.pressureDependence(world: world, now: now).consulted
        {
            world.pressure = pressure.read()
            pressureReadAt = wallNow
        }
        let decision = scheduler.decide(world: world, now: now)
        pressure.setHolding(scheduler.pressureDependence(world: world, now: now).holding)
        for job in decision.start {
            running[job.id] = Task { await self.execute(job.id) }
        }
        for id in decision.expired {
            Task { await self.expire(id) }
        }
        arm(decision.nextWakeup)
    }

    /// A PSI avg10 reading older than this is read again before a decision that depends on it.
    private static let pressureMaxAge: TimeInterval = 2

    private func arm(_ due: Date?) {
        guard due != timerDue else { return }
        timer?.cancel()
        timerDue = due
        guard let due else { return }
        // Measured on the time line and slept on the monotonic clock: a wall-clock jump moves neither.
        // At most `longestTimer` at a time (a wake-up only decides again): far-off times stay in
        // range, and as the event loop's clock stops while the machine sleeps, a suspend nobody
        // reported (no logind) delays a start by no more than that.
        let wait = min(max(0, due.timeIntervalSince(timeline.now())), Self.longestTimer)
        timer = Task { [weak self, sleeper] in
            try? await sleeper.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up))))
            guard !Task.isCancelled else { return }
            await self?.timerFired()
        }
    }

    private static let longestTimer: TimeInterval = 900

    private func timerFired() {
        timerDue = nil
        pump()
    }

    private func expire(_ id: JobID) async {
        let update = JobUpdate(
            id: id,
            from: [.queued],
            to: .expired,
            event: .expired,
            time: clock.now(),
            message: "the deadline passed before the job could start (on_deadline = expire)"
        )
        // The scheduler has let the job go already: an expiry lost to a full disk would leave it
        // queued in the store and nowhere in memory until the next start.
        guard case .applied(let job) = await durably(update)?.outcome else { return }
        release(1, for: job.owner)
        metrics.jobFinished(kind: job.spec.kind, outcome: "expired", reason: "deadline")
        logger.notice(
            "\(JobLogLine.name(job)) expired: its deadline passed before it could start",
            metadata: Self.metadata(job)
        )
        ended(job)
    }

    /// A job reached a final state: start its completion hook, if it names one.
    private func ended(_ job: Job) {
        guard let hooks, job.spec.onCompleteUnit != nil else { return }
        Task { await hooks.run(for: job) }
    }

    /// The fields every job record in the journal carries (upper-cased there: JOB_ID, …).
    static func metadata(_ job: Job, _ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "job_id": "\(job.id)", "job_kind": "\(job.spec.kind.rawValue)", "class": "\(job.spec.jobClass)",
            "owner_uid": "\(job.owner.rawValue)", "attempt": "\(job.attempts)",
        ]
        metadata.merge(extra) { _, new in new }
        return metadata
    }

    private func execute(_ id: JobID) async {
        defer {
            progressTicks += 1
            running[id] = nil
            reportedProgress[id] = nil
            if let meter = meters.removeValue(forKey: id) { accountants[id] = meter.finish() }
            scheduler.jobFinished(id, at: timeline.now())
            pump()
        }
        let start = JobUpdate(
            id: id,
            from: [.queued],
            to: .running,
            event: .started,
            time: clock.now(),
            countsAsAttempt: true
        )
        // Holding the slot while the store cannot write keeps the job from being forgotten.
        guard case .applied(let job) = await durably(start)?.outcome else { return }
        guard let engine = engines[job.spec.kind] else {
            await finish(
                job,
                failure: JobFailure(
                    code: "unsupported_kind",
                    message: "this daemon cannot run \(job.spec.kind.rawValue) jobs",
                    retryable: false
                )
            )
            return
        }
        let meter = AttemptMeter(
            job: job,
            accountant: accountants[id] ?? JobAccountant(),
            network: world.network,
            metrics: metrics
        )
        meters[id] = meter
        metrics.jobStarted(kind: job.spec.kind, jobClass: job.spec.jobClass)
        logger.info("\(JobLogLine.started(job))", metadata: Self.metadata(job, ["url": "\(job.spec.url)"]))
        let reporter = ProgressReporter(interval: progressInterval, clock: clock, sleeper: sleeper) {
            [weak self] progress in
            await self?.record(progress, of: id)
        }
        var validators: FetchValidators?
        if job.spec.kind == .fetch, let destination = job.spec.destination {
            validators = try? await store.fetchValidators(owner: job.owner, url: job.spec.url, destination: destination)
        }
        let context = TransferContext(
            progress: { progress in
                meter.observe(progress)
                reporter.report(progress)
            },
            checkpoint: { [weak self] resume in await self?.checkpoint(resume, of: id) },
            validators: validators
        )
        do {
            let result = try await engine.run(job, context: context)
            await finish(job, result: result)
        } catch {
            if Task.isCancelled {
                await interrupted(job)
                return
            }
            let failure =
                error as? JobFailure
                ?? JobFailure(
                    code: "internal_error",
                    message: "unexpected error: \(error)",
                    retryable: false
                )
            // A class a reload removed: the job runs as `default`, so it retries as `default` too.
            let classRetry =
                (policy.classPolicy(named: job.spec.jobClass) ?? policy.classPolicy(named: JobClassName.default))?.retry
                ?? .standard
            if let delay = classRetry.overridden(by: job.spec.retry).delay(
                afterAttempt: job.attempts,
                failure: failure,
                unitRandom: random()
            ) {
                await retry(job, after: failure, in: delay)
            } else {
                await finish(job, failure: failure)
            }
        }
    }

    /// Records how to resume; the event says from where, so a watcher knows what a crash would cost.
    /// A pause is recorded before its attempt winds down and saves what it received, as for a
    /// stop: that last checkpoint is kept in the state the command left (paused, or queued by a
    /// resume right behind it). A cancelled job's is refused: its partial file goes.
    private func checkpoint(_ resume: ResumeState, of id: JobID) async {
        var update = JobUpdate(
            id: id,
            from: [.running],
            to: .running,
            event: .progress,
            time: clock.now(),
            message: resume.offset == 0
                ? "resumable: the server allows resuming; nothing received yet"
                : "resumable from byte \(resume.offset)",
            resume: resume
        )
        for _ in 0..<3 {
            guard case .conflict(let latest)? = try? await store.apply(update),
                [.paused, .queued].contains(latest.state)
            else { return }
            (update.from, update.state) = ([latest.state], latest.state)
        }
    }

    private func retry(_ job: Job, after failure: JobFailure, in delay: TimeInterval) async {
        let retryAt = clock.now().addingTimeInterval(delay)
        let update = JobUpdate(
            id: job.id,
            from: [.running],
            to: .queued,
            event: .retrying,
            time: clock.now(),
            failure: failure,
            message: "attempt \(job.attempts) failed (\(failure.code)); retrying in \(String(format: "%.1f", delay)) s",
            retryAt: retryAt
        )
        guard case .applied(let updated) = await durably(update)?.outcome else { return }
        metrics.jobFinished(kind: job.spec.kind, outcome: "retrying", reason: failure.code)
        logger.notice(
            "\(JobLogLine.retrying(job, failure, in: delay))",
            metadata: Self.metadata(
                job,
                ["error_code": "\(failure.code)", "error": "\(failure.message)", "delay_s": "\(delay)"]
            )
        )
        scheduler.jobFinished(job.id, at: timeline.now())
        scheduler.enqueue(timeline.place(QueuedJob(updated)), now: timeline.now())
    }

    /// Ends the job's accounting: the last attempt's meter and the earlier attempts' totals.
    /// Attempts count from the store, which also knows attempts of earlier daemon runs.
    private func closeAccounting(of job: Job) -> JobAccounting {
        chargeMeteredBytes(of: job.id)
        let accountant = meters.removeValue(forKey: job.id)?.finish() ?? accountants[job.id] ?? JobAccountant()
        accountants[job.id] = nil
        var accounting = accountant.accounting
        // The store's count: it knows earlier runs and leaves out attempts a stop or sleep cut short.
        accounting.attempts = job.attempts
        return accounting
    }

    /// Metered bytes count against the class's and owner's daily budgets as they move.
    private func chargeMeteredBytes(of id: JobID) {
        guard let meter = meters[id] else { return }
        let bytes = meter.takeMeteredBytes()
        guard bytes > 0 else { return }
        scheduler.recordMeteredBytes(bytes, owner: meter.owner, className: meter.jobClass, at: timeline.now())
    }

    /// The running job's last progress report, with its rate while that is current. Reports
    /// come with data; a stalled transfer sends none, and its last rate and time left would go
    /// on promising what is not happening, so past three intervals only the bytes remain.
    func reportedProgress(of id: JobID) -> TransferProgress? {
        guard let reported = reportedProgress[id] else { return nil }
        var progress = reported.progress
        if clock.now().timeIntervalSince(reported.at) > 3 * max(progressInterval, 0.1) { progress.bytesPerSecond = nil }
        return progress
    }

    private func record(_ progress: TransferProgress, of id: JobID) async {
        // A report that arrives after the attempt ended must not outlive it.
        if running[id] != nil { reportedProgress[id] = (progress, clock.now()) }
        chargeMeteredBytes(of: id)
        let update = JobUpdate(
            id: id,
            from: [.running],
            to: .running,
            event: .progress,
            time: clock.now(),
            progress: progress
        )
        _ = try? await store.apply(update)
    }

    private func finish(_ job: Job, result: JobResult) async {
        var result = result
        result.accounting = closeAccounting(of: job)
        let next = nextOccurrence(of: job, unchanged: result.notModified == true)
        let update = JobUpdate(
            id: job.id,
            from: [.running],
            to: .succeeded,
            event: .succeeded,
            time: clock.now(),
            progress: result.bytes.map { TransferProgress(bytesDone: $0, bytesTotal: $0) },
            result: result,
            message: next?.announcement
        )
        // Nil when a command got there first (the job is cancelled or paused): that command
        // settled the quota and the log, and the outcome was not recorded.
        guard let ended = await store(update, for: job, successor: next?.job) else { return }
        release(1, for: job.owner)
        metrics.jobFinished(
            kind: job.spec.kind,
            outcome: "succeeded",
            reason: result.notModified == true ? "not_modified" : nil
        )
        logger.info(
            "\(JobLogLine.succeeded(job, bytes: result.bytes))",
            metadata: Self.metadata(job, ["bytes": "\(result.bytes ?? 0)"])
        )
        self.ended(ended)
    }

    private func finish(_ job: Job, failure: JobFailure) async {
        let accounting = closeAccounting(of: job)
        let next = nextOccurrence(of: job, unchanged: false)
        let update = JobUpdate(
            id: job.id,
            from: [.running],
            to: .failed,
            event: .failed,
            time: clock.now(),
            result: JobResult(accounting: accounting),
            failure: failure,
            message: next?.announcement
        )
        // As for success: a paused job keeps its resume data and its place in the quota.
        guard let ended = await store(update, for: job, successor: next?.job) else { return }
        release(1, for: job.owner)
        metrics.jobFinished(kind: job.spec.kind, outcome: "failed", reason: failure.code)
        await engines[job.spec.kind]?.discardResumeData(of: job)
        logger.warning(
            "\(JobLogLine.failed(job, failure))",
            metadata: Self.metadata(job, ["error_code": "\(failure.code)", "error": "\(failure.message)"])
        )
        self.ended(ended)
    }

    /// The task was cancelled: by a command (already recorded), by a stop or before sleep (back
    /// to the queue with its resume data).
    private func interrupted(_ job: Job) async {
        let message: String
        switch mode {
        case .accepting, .restoring: return
        case .sleeping: message = "the machine is going to sleep; the job resumes after it wakes up"
        case .stopping: message = "the daemon is stopping; the job resumes when it starts again"
        }
        let update = JobUpdate(
            id: job.id,
            from: [.running],
            to: .queued,
            event: .requeued,
            time: clock.now(),
            message: message,
            interruptsAttempt: true
        )
        guard let requeued = await store(update, for: job) else { return }
        logger.info(
            "\(JobLogLine.requeued(job, because: message))",
            metadata: Self.metadata(job, ["reason": "\(mode == .sleeping ? "sleep" : "stop")"])
        )
        if mode == .sleeping {
            scheduler.jobFinished(job.id, at: timeline.now())
            scheduler.enqueue(timeline.place(QueuedJob(requeued)), now: timeline.now())
        }
    }

    /// Records an outcome (and a periodic job's next occurrence); returns the job as stored, nil
    /// when the change did not apply or the task was cancelled before the store could write it.
    @discardableResult
    private func store(_ update: JobUpdate, for job: Job, successor: NewJob? = nil) async -> Job? {
        guard let (outcome, created) = await durably(update, creating: successor) else { return nil }
        if let created {
            unfinishedByOwner[created.owner, default: 0] += 1
            scheduler.enqueue(timeline.place(QueuedJob(created)), now: timeline.now())
            logger.info(
                "next occurrence queued",
                metadata: [
                    "job_id": "\(created.id)", "previous_job_id": "\(job.id)",
                    "not_before": "\(created.spec.notBefore.map { "\($0)" } ?? "-")",
                ]
            )
        }
        if case .applied(let stored) = outcome { return stored }
        return nil
    }

    /// Applies a change of state that must not be lost (with the periodic successor it creates,
    /// if any). When the store cannot write (a full disk), the change waits in this task and is
    /// tried again, with a pause growing to 5 s, until it is written; nil only when the task is
    /// cancelled first (a stop or a command; a job left `running` is requeued at the next
    /// start, as after a crash).
    private func durably(
        _ update: JobUpdate,
        creating successor: NewJob? = nil
    ) async -> (outcome: JobUpdateOutcome, successor: Job?)? {
        var pause = Duration.milliseconds(100)
        var failures = 0
        while true {
            do {
                let (outcome, created) = try await store.apply(update, creating: successor)
                if failures > 0 {
                    logger.notice(
                        "recorded job \(update.id)'s \(update.event.rawValue) after the store recovered (\(failures + 1) tries)",
                        metadata: ["job_id": "\(update.id)", "tries": "\(failures + 1)"]
                    )
                }
                return (outcome, created)
            } catch let error as EncodingError {
                // The change itself cannot be written (a value JSON cannot hold): trying again
                // would hold the job's slot for good. Left as it is, the job is requeued at the
                // next start, as after a crash.
                logger.critical(
                    "cannot record job \(update.id)'s \(update.event.rawValue): \(error); the job stays as it is until lulld restarts",
                    metadata: ["job_id": "\(update.id)", "event": "\(update.event.rawValue)", "error": "\(error)"]
                )
                return nil
            } catch {
                if failures == 0 {
                    logger.error(
                        "could not record job \(update.id)'s \(update.event.rawValue): \(error); trying again until the store can write",
                        metadata: ["job_id": "\(update.id)", "event": "\(update.event.rawValue)", "error": "\(error)"]
                    )
                }
                failures += 1
                do { try await sleeper.sleep(for: pause) } catch { return nil }
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    /// A periodic job's next occurrence, created with the end of this one: its flex window
    /// opens at `not_before` and closes at its deadline (`on_deadline = run`). An adaptive
    /// fetch that found nothing new waits longer next time (up to `max_every_seconds`).
    private func nextOccurrence(of job: Job, unchanged: Bool) -> (job: NewJob, announcement: String)? {
        guard let periodic = job.spec.periodic else { return nil }
        let now = clock.now()
        let interval = periodic.nextInterval(current: job.spec.periodInterval ?? periodic.every, unchanged: unchanged)
        // Measured from this occurrence's due time when it ended earlier, so that a flex window
        // as wide as the period cannot open the moment a run ends.
        let base = max(now, job.spec.deadline ?? now)
        let window = periodic.nextWindow(after: base, interval: interval, salt: UInt64(job.id.rawValue))
        var spec = job.spec
        spec.notBefore = window.opens
        spec.deadline = window.due
        spec.onDeadline = .run
        spec.periodInterval = interval
        // Each occurrence is a new request to the server, not a retry of the last one.
        if spec.kind == .push { spec.idempotencyKey = UUID().uuidString.lowercased() }
        let formatter = ISO8601DateFormatter()
        let stretched = interval > periodic.every ? " (no new data: the period is stretched to \(Int(interval)) s)" : ""
        return (
            NewJob(owner: job.owner, spec: spec, createdAt: now),
            "the next occurrence runs between \(formatter.string(from: window.opens)) and \(formatter.string(from: window.due))\(stretched)"
        )
    }

    private func refreshLocalTime(at now: Date) {
        let (localTime, knownUntil) = Self.localTime(at: now)
        scheduler.updateLocalTime(localTime)
        localTimeKnownUntil = knownUntil
    }

    /// The local time zone's offset now and at its next change, for class time windows.
    static func localTime(at now: Date) -> (LocalTime, knownUntil: Date) {
        let localTime = SystemTimeZone.localTime(at: now)
        return (localTime, localTime.changes.last?.at ?? now.addingTimeInterval(LocalTime.observationHorizon))
    }
}
