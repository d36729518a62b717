import Foundation
import Logging
import LullCore

/// The live side of the queue: a thin actor around `DispatchStateMachine`, which decides. The
/// actor feeds it inputs (submissions, commands, the world, the timer, attempts' ends) and
/// performs the actions it answers with; it owns what a value cannot: the tasks that run
/// attempts (`AttemptRunner`), the one timer, and the store writes (`OutcomeRecorder`). Every
/// state change goes to the store first; memory follows what the store says.
actor Dispatcher {
    let store: any JobStore
    let engines: [JobKind: any TransferEngine]
    /// Wall-clock time, for what is recorded (event times, retry times).
    let clock: any LullClock
    /// Scheduling time: waits are measured on it, so wall-clock jumps do not disturb them.
    let timeline: SchedulingTimeline
    let logger: Logger
    let random: @Sendable () -> Double
    let readings: SystemReadings
    let metrics: DaemonMetrics
    let recorder: OutcomeRecorder
    var machine: DispatchStateMachine
    /// Per job: what its attempts moved.
    var accounts = AttemptAccounts()
    /// Each running job's last progress report with its rate, which the store does not keep:
    /// a job's view shows rate and time left while it runs. When is on the time line.
    var reportedProgress: [JobID: (progress: TransferProgress, at: Date)] = [:]
    var running: [JobID: Task<Void, Never>] = [:]
    /// Running attempts held where they are by a pause (`Dispatcher+Freezing`), from the moment
    /// the pause begins until a resume's thaw has returned.
    var frozen: Set<JobID> = []
    /// Running attempts of a `FreezableEngine` (processes): a suspend holds them where they are.
    var holdable: Set<JobID> = []
    private var timer: Task<Void, Never>?
    /// Starts the unit a job names in `on_complete_unit` once the job has ended.
    let hooks: CompletionHooks?
    /// Told whenever the queue or the running set may have changed (the service STATUS line).
    var statusObserver: (@Sendable () -> Void)?
    /// Told at each start of an attempt (lulld's code is about to be busy: `StartupPages`).
    var startObserver: (@Sendable () -> Void)?
    var heartbeat: Task<Void, Never>?
    /// Least time between two stored progress updates of one job.
    let progressInterval: TimeInterval
    /// How the timer, heartbeat and store retries wait (never `Task.sleep`: see `Sleeper`).
    let sleeper: any Sleeper
    /// Kinds whose engines report what their attempts use (run jobs), sampled while they run
    /// (`Dispatcher+Usage`), with the attempts sampled now and the loop that samples them.
    let usageKinds: Set<JobKind>
    var usageSamples = UsageSamples()
    var usageSampler: Task<Void, Never>?

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
        usageKinds = Set(
            engines.compactMap { ($0.value as? any UsageReportingEngine)?.reportsUsage == true ? $0.key : nil }
        )
        let (localTime, knownUntil) = SystemReadings.localTime(at: clock.now())
        machine = DispatchStateMachine(policy: policy, world: world, localTime: localTime, knownUntil: knownUntil)
        self.progressInterval = progressInterval
        self.clock = clock
        self.sleeper = sleeper
        timeline = SchedulingTimeline(wall: clock, monotonic: monotonic)
        self.logger = logger
        self.random = random
        readings = SystemReadings(gauge: pressure)
        self.metrics = metrics
        recorder = OutcomeRecorder(
            store: store,
            engines: engines,
            clock: clock,
            sleeper: sleeper,
            metrics: metrics,
            logger: logger,
            hooks: hooks
        )
    }

    var runningCount: Int { running.count }

    /// Moves whenever a restore places jobs or an attempt ends: how a stop or start-up shows
    /// the service manager that it is not hung.
    var progressTicks = 0
    var queuedCount: Int { machine.queuedCount }
    var currentWorld: WorldSnapshot { machine.world }
    var currentPolicy: SchedulingPolicy { machine.policy }
    var schedulingStatistics: SchedulingStatistics { machine.schedulingStatistics }

    /// Calls `observer` after every change that may alter the service's status line.
    func observeStatus(_ observer: @escaping @Sendable () -> Void) {
        statusObserver = observer
        observer()
    }

    /// Calls `observer` at each attempt's start from now on, and at once if one already runs.
    func observeStarts(_ observer: @escaping @Sendable () -> Void) {
        startObserver = observer
        if !running.isEmpty { observer() }
    }

    /// The service manager's status line (see `ServiceStatusLine`).
    func statusLine() -> String {
        ServiceStatusLine(running: running.count, queued: machine.queuedCount, mode: machine.mode) {
            machine.heldByCondition(now: timeline.now())
        }.text
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

    /// Claims room for `count` new jobs of `owner` under `limit` before they are stored; the
    /// claim becomes the jobs' count once they are, or is given back with `release`. Root's
    /// jobs are not limited.
    func reserve(_ count: Int, for owner: OwnerID, limit: Int) -> Result<Void, OwnerQuotaExceeded> {
        machine.reserve(count, for: owner, limit: limit)
    }

    func release(_ count: Int, for owner: OwnerID) {
        machine.release(count, for: owner)
    }

    /// Newly stored jobs join the queue. Returns why each still waits (empty: it starts now), so
    /// the submission's answer costs no second visit to the dispatcher.
    @discardableResult
    func enqueue(_ jobs: [Job]) -> [[WaitingReason]] {
        let now = instant()
        perform(machine.submitted(jobs.map { timeline.place(QueuedJob($0)) }, at: now, readings: readings))
        return jobs.map { machine.waitingReasons(for: $0.id, now: now.now) }
    }

    /// The machine changed: decide again.
    func update(world: WorldSnapshot) {
        perform(machine.worldChanged(world, at: instant(), readings: readings))
    }

    func update(power: PowerState) {
        var next = machine.world
        next.power = power
        update(world: next)
    }

    func update(network: NetworkState) {
        accounts.networkChanged(network)
        var next = machine.world
        next.network = network
        update(world: next)
    }

    /// logind's idle-since is a wall-clock time: placed on the time line like a `not_before`.
    func update(idle: IdleState) {
        var next = machine.world
        next.idle = idle.shifted(by: -timeline.wallOffset)
        update(world: next)
    }

    func update(pressure: PressureState) {
        perform(machine.pressureRead(pressure, at: instant(), readings: readings))
    }

    /// A new policy (reload): the queue is re-evaluated under it.
    func update(policy: SchedulingPolicy) {
        perform(machine.policyChanged(policy, at: instant(), readings: readings))
    }

    /// Why a queued job is not running now; empty when it is about to start or not queued.
    func waitingReasons(for id: JobID) -> [WaitingReason] {
        machine.waitingReasons(for: id, now: timeline.now())
    }

    /// The scheduler's next wake-up, when one is set.
    var nextCheck: Date? { machine.timerDue.map(timeline.wallTime(of:)) }

    /// What would happen under another world, changing nothing.
    func simulate(_ hypothetical: WorldSnapshot, explainLimit: Int, owner: OwnerID?) -> SchedulingSimulation {
        machine.simulate(hypothetical, now: timeline.now(), explainLimit: explainLimit, owner: owner)
    }

    /// What a running command uses (run jobs): its last sample, or before the first one a
    /// reading now; nil for other kinds and jobs not running.
    func usage(of job: Job) -> CommandUsage? {
        guard running[job.id] != nil else { return nil }
        var usage =
            usageSamples.usage(of: job.id) ?? (engines[job.spec.kind] as? any UsageReportingEngine)?.usage(of: job.id)
        // Not sampled while frozen: its last share is from before, and a stopped group uses none.
        if frozen.contains(job.id) { usage?.cpuPercent = 0 }
        return usage
    }

    /// The running job's last progress report, with its rate while that is current. Reports
    /// come with data; a stalled transfer sends none, and its last rate and time left would go
    /// on promising what is not happening, so past three intervals only the bytes remain.
    func reportedProgress(of id: JobID) -> TransferProgress? {
        guard let reported = reportedProgress[id] else { return nil }
        var progress = reported.progress
        // On the time line: a step of the wall clock neither ages a live rate nor keeps a stale one.
        if timeline.now().timeIntervalSince(reported.at) > 3 * max(progressInterval, 0.1) {
            progress.bytesPerSecond = nil
        }
        return progress
    }

    /// Both clocks now, for one input of the state machine.
    func instant() -> DispatchInstant {
        let now = timeline.now()
        return DispatchInstant(now: now, wall: clock.now())
    }

    /// Does what the state machine decided.
    func perform(_ actions: [DispatchAction]) {
        for action in actions {
            switch action {
            case .statusChanged: statusObserver?()
            case .holdOnPressure(let holding): readings.gauge.setHolding(holding)
            case .start(let job):
                startObserver?()
                running[job.id] = Task { await self.execute(job.id) }
            // A frozen attempt is not stopped while it is held: the stop is decided again when
            // it is thawed.
            case .stop(let id, _) where !frozen.contains(id): running[id]?.cancel()
            case .stop: break
            case .expire(let id): Task { await self.expire(id) }
            case .armTimer(let due): arm(due)
            case .disarmTimer:
                timer?.cancel()
                timer = nil
            }
        }
    }

    /// Measured on the time line and slept on the monotonic clock: a wall-clock jump moves
    /// neither. At most `longestTimer` at a time (a wake-up only decides again): far-off times
    /// stay in range, and as the event loop's clock stops while the machine sleeps, a suspend
    /// nobody reported (no logind) delays a start by no more than that.
    private func arm(_ due: Date) {
        timer?.cancel()
        let wait = min(max(0, due.timeIntervalSince(timeline.now())), Self.longestTimer)
        timer = Task { [weak self, sleeper] in
            try? await sleeper.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up))))
            guard !Task.isCancelled else { return }
            await self?.timerFired()
        }
    }

    private static let longestTimer: TimeInterval = 900

    private func timerFired() {
        perform(machine.timerFired(at: instant(), readings: readings))
    }

    private func expire(_ id: JobID) async {
        guard let job = await recorder.expired(id) else { return }
        machine.release(1, for: job.owner)
        // A job that had attempts before it expired: its carried-over totals go with it.
        accounts.forget(id)
    }
}
