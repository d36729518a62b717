import Foundation

/// The dispatcher's decisions as a value, after SwiftNIO's state machines: each input changes
/// the state and returns the actions to perform, in order; the daemon performs them. It holds
/// the scheduler, the world as last sensed, the mode, each owner's count of unfinished jobs and
/// when the one timer is due. It does no I/O and reads no clock (each input brings its
/// `DispatchInstant`), so every sequence of inputs can be replayed in a test.
///
/// Jobs come in placed on the scheduling time line (`SchedulingTimeline.place`).
public struct DispatchStateMachine: Sendable {
    public private(set) var mode = DispatchMode.accepting
    public private(set) var world: WorldSnapshot
    public private(set) var policy: SchedulingPolicy
    /// When the armed timer fires, on the time line; nil when none is armed.
    public private(set) var timerDue: Date?
    private var scheduler: JobScheduler
    /// Unfinished jobs (queued, paused, running) per owner, for `max_queued_per_owner`.
    private var unfinishedByOwner: [OwnerID: Int] = [:]
    /// When `world.pressure` was last read (by a decision or the sampler), on the time line: on
    /// the wall clock, a step back would keep an old reading for as long as the step.
    private var pressureReadAt: Date?
    /// The local time rules know one daylight-saving change ahead; past it they are read again.
    private var localTimeKnownUntil: Date
    /// Running jobs being stopped because their conditions lapsed, with the reason.
    private var stopping: [JobID: WaitingReason.Code] = [:]
    /// Each running job's expected time to finish at its current rate, from its last progress.
    private var secondsLeft: [JobID: Double] = [:]

    /// A PSI avg10 reading older than this is read again before a decision that depends on it.
    public static let pressureMaxAge: TimeInterval = 2

    public init(policy: SchedulingPolicy, world: WorldSnapshot, localTime: LocalTime, knownUntil: Date) {
        self.policy = policy
        self.world = world
        scheduler = JobScheduler(policy: policy, localTime: localTime)
        localTimeKnownUntil = knownUntil
    }

    public var queuedCount: Int { scheduler.queuedCount }
    public var schedulingStatistics: SchedulingStatistics { scheduler.statistics }

    // MARK: - Inputs that decide

    /// The queue has been read back: owners' counts are now known and jobs may start.
    public mutating func restored(
        unfinished: [OwnerID: Int],
        at instant: DispatchInstant,
        readings: some DispatchReadings
    ) -> [DispatchAction] {
        unfinishedByOwner = unfinished
        if mode == .restoring { mode = .accepting }
        return decide(at: instant, readings: readings)
    }

    /// Newly stored jobs join the queue.
    public mutating func submitted(
        _ jobs: [QueuedJob],
        at instant: DispatchInstant,
        readings: some DispatchReadings
    ) -> [DispatchAction] {
        for job in jobs { scheduler.enqueue(job, now: instant.now) }
        return decide(at: instant, readings: readings)
    }

    /// The machine changed; nothing to do when it did not.
    public mutating func worldChanged(
        _ world: WorldSnapshot,
        at instant: DispatchInstant,
        readings: some DispatchReadings
    ) -> [DispatchAction] {
        guard world != self.world else { return [] }
        self.world = world
        return decide(at: instant, readings: readings, checkingRunning: true)
    }

    /// The sampler read pressure; the reading counts as fresh even when it changes nothing.
    public mutating func pressureRead(
        _ pressure: PressureState,
        at instant: DispatchInstant,
        readings: some DispatchReadings
    ) -> [DispatchAction] {
        pressureReadAt = instant.now
        var next = world
        next.pressure = pressure
        return worldChanged(next, at: instant, readings: readings)
    }

    /// A new policy (reload): the queue is re-evaluated under it, and the local time zone is
    /// read again (an admin who moved the machine to another zone reloads).
    public mutating func policyChanged(
        _ policy: SchedulingPolicy,
        at instant: DispatchInstant,
        readings: some DispatchReadings
    ) -> [DispatchAction] {
        self.policy = policy
        refreshLocalTime(readings.localTime(at: instant.wall))
        scheduler.updatePolicy(policy, now: instant.now)
        return decide(at: instant, readings: readings, checkingRunning: true)
    }

    public mutating func timerFired(at instant: DispatchInstant, readings: some DispatchReadings) -> [DispatchAction] {
        timerDue = nil
        return decide(at: instant, readings: readings, checkingRunning: true)
    }

    /// An attempt's slot is free: its outcome is recorded, or it never started.
    public mutating func attemptFinished(
        _ id: JobID,
        at instant: DispatchInstant,
        readings: some DispatchReadings
    ) -> [DispatchAction] {
        scheduler.jobFinished(id, at: instant.now)
        stopping[id] = nil
        secondsLeft[id] = nil
        return decide(at: instant, readings: readings)
    }

    /// A command's change is in effect (a running attempt has wound down): a resumed job
    /// rejoins the queue.
    public mutating func commandTookEffect(
        requeueing job: QueuedJob?,
        at instant: DispatchInstant,
        readings: some DispatchReadings
    ) -> [DispatchAction] {
        if let job { scheduler.enqueue(job, now: instant.now) }
        return decide(at: instant, readings: readings)
    }

    /// The machine woke up: the world and the clock may have changed, so decide again.
    public mutating func woke(at instant: DispatchInstant, readings: some DispatchReadings) -> [DispatchAction] {
        guard mode == .sleeping else { return [] }
        mode = .accepting
        return decide(at: instant, readings: readings, checkingRunning: true)
    }

    // MARK: - Inputs that only record

    public mutating func restoreBegan() { mode = .restoring }

    /// A stop that came in meanwhile keeps its mode; otherwise start accepting, even on an error.
    public mutating func restoreEnded() {
        if mode == .restoring { mode = .accepting }
    }

    public mutating func reserveCapacity(_ additional: Int) { scheduler.reserveCapacity(additional) }

    /// One job read back from the store joins the queue (owners are counted by `restored`).
    public mutating func restoredJob(_ job: QueuedJob, now: Date) { scheduler.enqueue(job, now: now) }

    /// The machine is about to sleep. True when running attempts are to be interrupted now;
    /// nothing starts until `woke`.
    public mutating func sleep() -> Bool {
        guard mode == .accepting else { return false }
        mode = .sleeping
        timerDue = nil
        return true
    }

    /// The daemon stops: nothing starts from now on.
    public mutating func stop() {
        mode = .stopping
        timerDue = nil
    }

    /// A command was recorded: the job leaves the queue (a resumed one comes back with
    /// `commandTookEffect`), and a job it ended no longer counts against its owner's quota.
    public mutating func commandRecorded(_ job: Job) {
        commandRecorded(job.id, owner: job.owner, state: job.state)
    }

    /// The same, for a job known by its plain columns (one whose row no longer decodes).
    public mutating func commandRecorded(_ id: JobID, owner: OwnerID, state: JobState) {
        if state.isTerminal { release(1, for: owner) }
        _ = scheduler.remove(id)
    }

    /// A failed attempt's job waits in the queue for its retry (`backoffUntil` set).
    public mutating func retryRecorded(_ job: QueuedJob, now: Date) {
        scheduler.jobFinished(job.id, at: now)
        scheduler.enqueue(job, now: now)
    }

    /// An interrupted attempt's job was requeued: before sleep it waits in the queue for the
    /// wake-up; at a stop it stays in the store for the next start.
    public mutating func interruptionRecorded(_ job: QueuedJob, now: Date) {
        guard mode == .sleeping else { return }
        retryRecorded(job, now: now)
    }

    /// A frozen (paused) attempt goes on: a stop decided while it was frozen is decided again.
    public mutating func thawed(_ id: JobID, at instant: DispatchInstant) -> [DispatchAction] {
        stopping[id] = nil
        scheduler.reconsiderStop(of: id)
        guard mode == .accepting else { return [] }
        return stopLapsedRunningJobs(now: instant.now)
    }

    /// A pause that held nothing lets its job go: a stop decided while the pause was in flight
    /// (held back, as for a frozen job) is carried out now. Unlike `thawed`, it decides nothing
    /// again: a stop already under way keeps its reason.
    public func stopHeldBack(of id: JobID) -> [DispatchAction] {
        guard mode == .accepting, let reason = stopping[id] else { return [] }
        return [.stop(id, reason: reason)]
    }

    /// A job stopped on lost conditions is queued again, held until they have held for its
    /// hold-down (`holdDown` set).
    public mutating func stopRecorded(_ job: QueuedJob, now: Date) {
        retryRecorded(job, now: now)
    }

    /// A periodic job's next occurrence was stored.
    public mutating func successorCreated(_ job: QueuedJob, now: Date) {
        unfinishedByOwner[job.owner, default: 0] += 1
        scheduler.enqueue(job, now: now)
    }

    /// Bytes moved over metered links count against the class's and owner's daily budgets.
    public mutating func meteredBytesMoved(_ bytes: Int64, owner: OwnerID, className: String, now: Date) {
        scheduler.recordMeteredBytes(bytes, owner: owner, className: className, at: now)
    }

    /// A running job reported progress: how long it has left counts for `finish_within`, and
    /// the metered bytes it charged (`meteredBytesMoved`) may have spent a daily budget, which
    /// stops it now rather than after the file. A job left to finish after its conditions
    /// lapsed is stopped once it no longer looks like finishing within `finish_within`.
    public mutating func runningProgressed(
        _ id: JobID,
        secondsLeft left: Double?,
        at instant: DispatchInstant
    ) -> [DispatchAction] {
        secondsLeft[id] = left
        guard mode == .accepting, world.network.metered || scheduler.isSpared(id) else { return [] }
        return stopLapsedRunningJobs(now: instant.now)
    }

    // MARK: - Attempts

    /// What to record about an attempt of `job` that ended with `outcome` at `wall`.
    /// `unitRandom` is asked only when a failure is retried (the backoff's jitter).
    public func attemptEnded(
        _ job: Job,
        _ outcome: AttemptOutcome,
        wall: Date,
        unitRandom: () -> Double
    )
        -> AttemptConclusion
    {
        switch outcome {
        case .succeeded(let result):
            return .succeed(
                result,
                next: PeriodicSuccessor.after(job, endedAt: wall, unchanged: result.notModified == true)
            )
        case .failed(let failure):
            let retry = policy.retryPolicy(for: job.spec)
            if let delay = retry.delay(afterAttempt: job.attempts, failure: failure, unitRandom: unitRandom()) {
                return .retry(failure, delay: delay)
            }
            return .fail(failure, next: PeriodicSuccessor.after(job, endedAt: wall, unchanged: false))
        case .interrupted:
            switch mode {
            case .accepting, .restoring:
                if let reason = stopping[job.id] { return .requeue(.conditionsLost(reason)) }
                return .settledByCommand
            case .sleeping: return .requeue(.sleep)
            case .stopping: return .requeue(.stop)
            }
        }
    }

    // MARK: - Quotas

    /// Claims room for `count` new jobs of `owner` under `limit` before they are stored; the
    /// claim becomes the jobs' count once they are, or is given back with `release`. Root's
    /// jobs are not limited.
    public mutating func reserve(_ count: Int, for owner: OwnerID, limit: Int) -> Result<Void, OwnerQuotaExceeded> {
        let current = unfinishedByOwner[owner, default: 0]
        if owner.rawValue != 0, current + count > limit {
            return .failure(OwnerQuotaExceeded(owner: owner, unfinished: current, asked: count, limit: limit))
        }
        unfinishedByOwner[owner] = current + count
        return .success(())
    }

    public mutating func release(_ count: Int, for owner: OwnerID) {
        let left = unfinishedByOwner[owner, default: 0] - count
        unfinishedByOwner[owner] = left > 0 ? left : nil
    }

    // MARK: - Questions

    /// Why a queued job is not running now; empty when it is about to start or not queued.
    public func waitingReasons(for id: JobID, now: Date) -> [WaitingReason] {
        scheduler.waitingReasons(for: id, world: world, now: now)
    }

    /// What would happen under another world, changing nothing.
    public func simulate(_ world: WorldSnapshot, now: Date, explainLimit: Int, owner: OwnerID?) -> SchedulingSimulation
    {
        scheduler.simulate(world: world, now: now, explainLimit: explainLimit, owner: owner)
    }

    /// Queued jobs per world condition that holds them (for the status line).
    public func heldByCondition(now: Date) -> [WaitingReason.Code: Int] {
        scheduler.heldByCondition(world: world, now: now)
    }

    // MARK: - Deciding

    /// Asks the scheduler what to do now: the jobs to start and to expire, whether pressure
    /// holds jobs, and one timer for the next time anything could change without an event.
    private mutating func decide(
        at instant: DispatchInstant,
        readings: some DispatchReadings,
        checkingRunning: Bool = false
    ) -> [DispatchAction] {
        var actions: [DispatchAction] = [.statusChanged]
        guard mode == .accepting else { return actions }
        let now = instant.now
        // Local-time rules follow the wall clock (a daylight-saving change is a wall-clock event).
        if instant.wall >= localTimeKnownUntil { refreshLocalTime(readings.localTime(at: instant.wall)) }
        // Pressure is read only when a start hangs on it, and sampled only while it holds jobs.
        // Due timers first, so a job released at this moment is among those it may hold. The
        // cheap staleness test next: while a reading is fresh, no scan of the groups.
        scheduler.advance(to: now)
        if pressureReadAt.map({ instant.now.timeIntervalSince($0) >= Self.pressureMaxAge }) ?? true,
            scheduler.pressureDependence(world: world, now: now).consulted
        {
            world.pressure = readings.pressure()
            pressureReadAt = instant.now
        }
        let decision = scheduler.decide(world: world, now: now)
        actions.append(.holdOnPressure(scheduler.pressureDependence(world: world, now: now).holding))
        actions += decision.start.map(DispatchAction.start)
        actions += decision.expired.map(DispatchAction.expire)
        if checkingRunning { actions += stopLapsedRunningJobs(now: now) }
        if decision.nextWakeup != timerDue {
            timerDue = decision.nextWakeup
            actions.append(decision.nextWakeup.map { .armTimer(at: $0) } ?? .disarmTimer)
        }
        return actions
    }

    /// Running jobs whose conditions lapsed are stopped (see `JobScheduler.lapsedRunningJobs`).
    private mutating func stopLapsedRunningJobs(now: Date) -> [DispatchAction] {
        let lapsed = scheduler.lapsedRunningJobs(world: world, now: now) { secondsLeft[$0] }
        for (id, reason) in lapsed { stopping[id] = reason }
        return lapsed.map { DispatchAction.stop($0.id, reason: $0.reason) }
    }

    private mutating func refreshLocalTime(_ reading: (LocalTime, knownUntil: Date)) {
        scheduler.updateLocalTime(reading.0)
        localTimeKnownUntil = reading.knownUntil
    }
}
