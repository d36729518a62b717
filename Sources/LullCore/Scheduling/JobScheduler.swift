import Foundation
import HeapModule

/// The scheduling core: which queued jobs start now, which wait and why, and when to look
/// again. Pure and deterministic — time and the world are parameters, nothing is read from the
/// system — so every decision can be replayed in a test.
///
/// Jobs are grouped by class and effective constraints (a group is evaluated once per world),
/// then by owner and kind (a bucket), then by host (a lane, a heap by priority). A decision
/// costs O(groups + started · (buckets + log n)), never a scan of the queue; see
/// docs/scheduling-core.md.
///
/// `decide` marks the jobs it returns as running; report their end with `jobFinished` (and a
/// retry with `enqueue`, `backoffUntil` set).
public struct JobScheduler: Sendable {
    public internal(set) var policy: SchedulingPolicy
    public internal(set) var localTime: LocalTime
    /// An admin paused everything: nothing starts until `resumeAll`.
    public internal(set) var isPausedAll = false
    public internal(set) var statistics = SchedulingStatistics()

    var classIndexByName: [String: Int] = [:]
    var defaultClassIndex = 0
    var classes: [ClassState] = []
    var groups: [GroupState] = []
    var groupIndex: [GroupKey: Int] = [:]
    /// Groups whose last job left, reused before the arrays grow: the groups and buckets a
    /// decision walks are those of the jobs queued now, not of every job ever seen.
    var freeGroups: [Int] = []
    var groupRules: [GroupRule] = []
    /// Per group: readyAt / release times, which wake the daemon only while the group may start jobs.
    var loudTimers: [Heap<TimerItem>] = []
    /// Per group: deadlines (and the readiness of jobs already past theirs), which always wake the daemon.
    var deadlineTimers: [Heap<TimerItem>] = []
    /// Per group: urgency changes (order only), which never wake the daemon; applied at the next decision.
    var quietTimers: [Heap<TimerItem>] = []
    /// No timer of any group is due before this (a lower bound), so most decisions skip the timers.
    var earliestTimer = Double.infinity
    var buckets: [BucketState] = []
    var bucketInfo: [BucketInfo] = []
    var bucketIndex: [BucketKey: Int] = [:]
    var freeBuckets: [Int] = []
    var hostNames: [String] = []
    var hostIndex: [String: UInt32] = [:]
    /// Queued jobs in a slab: heap items name a slot, so checking an item costs an array read.
    var slots: [SchedulerEntry] = []
    var slotOf: [JobID: UInt32] = [:]
    var freeSlots: [UInt32] = []
    var running: [JobID: RunningJob] = [:]
    /// Jobs stopped on lost conditions, waiting until those have held for their hold-down.
    var held: [JobID: HeldJob] = [:]
    var runningByKind: [JobKind: Int] = [:]
    var runningByHost: [UInt32: Int] = [:]
    var runningByOwner: [OwnerID: Int] = [:]
    /// Hosts at their limit → buckets holding a parked lane for that host.
    var parkedLanes: [UInt32: [Int]] = [:]
    var pendingExpired: [JobID] = []
    var lastLinkActivity = -Double.infinity
    /// Stride scheduling's virtual time: the pass of the last class served.
    var virtualTime = 0
    /// Starts so far, and the start at which each owner was last served: between owners with as
    /// many jobs running, the one served longest ago goes first, so owners take turns.
    var turns: UInt64 = 0
    var ownerSlot: [OwnerID: Int] = [:]
    var ownerTurn: [UInt64] = []
    var usage = MeteredUsage()
    /// Re-placements since the last compaction (each may leave stale heap items behind).
    var detachesSinceCompaction = 0
    /// Source of entry generations. Global, not per entry, so a job re-enqueued under the same
    /// id never revives heap items of its earlier life. Compaction bounds the life of a stale
    /// item to about n placements, far below the 2³² wrap.
    var generation: UInt32 = 0

    static let strideScale = 1 << 20

    // Limits copied out of the policy as plain numbers (Int.max = none) for the hot path.
    var hostLimit = Int.max
    /// The host of jobs that talk to none (run jobs): `max_per_host` does not count them.
    var hostless: UInt32 = 0
    var ownerLimit = Int.max
    var kindLimit: [JobKind: Int] = [:]

    public init(policy: SchedulingPolicy = .defaults, localTime: LocalTime = .utc) {
        self.policy = policy
        self.localTime = localTime
        configureClasses()
    }

    // MARK: - Queries

    public var queuedCount: Int { slotOf.count }
    /// Groups and buckets held in memory, in use or free for reuse (what a decision walks).
    public var allocatedGroups: Int { groups.count }
    public var allocatedBuckets: Int { buckets.count }
    /// Lanes listed as parked on a full host, over all hosts.
    public var parkedLaneCount: Int { parkedLanes.values.reduce(0) { $0 + $1.count } }
    public var runningCount: Int { running.count }
    public var runningIDs: Set<JobID> { Set(running.keys) }

    public func isQueued(_ id: JobID) -> Bool { slotOf[id] != nil }
    public func isRunning(_ id: JobID) -> Bool { running[id] != nil }
    public func isPaused(_ id: JobID) -> Bool { entry(id)?.pool == .paused }

    /// The queued job as the scheduler holds it (class resolved, unknown classes as `default`).
    public func queuedJob(_ id: JobID) -> QueuedJob? { entry(id).map(queuedJob) }

    func entry(_ id: JobID) -> SchedulerEntry? { slotOf[id].map { slots[Int($0)] } }

    // MARK: - Changes

    /// Makes room for `additional` more queued jobs at once, so loading a large queue does not
    /// rehash the job index again and again as it grows.
    public mutating func reserveCapacity(_ additional: Int) {
        slotOf.reserveCapacity(slotOf.count + additional)
        slots.reserveCapacity(slots.count + additional)
    }

    /// Adds a job to the queue, or replaces the queued job with the same id. A job reported
    /// running is treated as finished first (a retry: pass the job with `backoffUntil`).
    public mutating func enqueue(_ job: QueuedJob, now: Date) {
        // Hosts stay interned after their jobs leave: once they outnumber twice the jobs that
        // could use them, the structures are rebuilt (as on a reload), so a stream of jobs to
        // ever new hosts cannot grow the table without end. Amortised, O(log n) per job.
        if hostNames.count > Self.hostsKeptIdle + 2 * (slotOf.count + running.count) {
            updatePolicy(policy, now: now)
        }
        let t = now.timeIntervalSinceReferenceDate
        if !running.isEmpty, running[job.id] != nil { jobFinished(job.id, at: now) }
        if let slot = slotOf[job.id] { drop(Int(slot)) }
        forgetExpiry(of: job.id)
        let classIndex = classIndexByName[job.className] ?? defaultClassIndex
        let cls = policy.classes[classIndex]
        let tooBig = cls.maxMeteredJobBytes.map { (job.expectedBytes ?? 0) > $0 } ?? false
        let group = group(
            for: GroupKey(classIndex: classIndex, constraints: job.constraints.inWholePercent, tooBigForMetered: tooBig)
        )
        let bucket = bucket(for: BucketKey(group: group, owner: job.owner, kind: job.kind))
        buckets[bucket].members += 1
        generation &+= 1
        let slot = allocate(
            SchedulerEntry(
                id: job.id,
                owner: job.owner,
                host: intern(job.host),
                bucket: UInt32(bucket),
                gen: generation,
                kind: job.kind,
                onDeadline: job.onDeadline,
                pool: .detached,
                deferrableRequest: job.deferrable,
                // Riding along with other traffic means nothing to a job that sends none.
                deferrable: (job.deferrable ?? cls.coalesce) && job.deadline != nil
                    && job.constraints.network != .notNeeded,
                notBefore: job.notBefore?.timeIntervalSinceReferenceDate ?? .nan,
                backoffUntil: job.backoffUntil?.timeIntervalSinceReferenceDate ?? .nan,
                deadline: job.deadline?.timeIntervalSinceReferenceDate ?? .nan,
                expectedDown: job.expectedBytesDown ?? -1,
                expectedUp: job.expectedBytesUp ?? -1
            )
        )
        slotOf[job.id] = UInt32(slot)
        if let holdDown = job.holdDown {
            slots[slot].pool = .held
            held[job.id] = HeldJob(holdDown: holdDown)
        } else {
            attach(slot, now: t)
        }
    }

    /// Drops a queued or paused job (cancelled, or handed elsewhere). Returns whether it was queued.
    @discardableResult
    public mutating func remove(_ id: JobID) -> Bool {
        if forgetExpiry(of: id) { return true }
        guard let slot = slotOf[id] else { return false }
        drop(Int(slot))
        return true
    }

    /// A job found expired but not yet reported is no longer reported (removed or replaced).
    @discardableResult
    mutating func forgetExpiry(of id: JobID) -> Bool {
        guard !pendingExpired.isEmpty, let index = pendingExpired.firstIndex(of: id) else { return false }
        pendingExpired.remove(at: index)
        return true
    }

    /// A person paused the job: it stays known (and explainable) but never starts until resumed.
    public mutating func pause(_ id: JobID) {
        guard let slot = slotOf[id].map(Int.init) else { return }
        detach(slot)
        slots[slot].pool = .paused
    }

    public mutating func resume(_ id: JobID, now: Date) {
        guard let slot = slotOf[id].map(Int.init), slots[slot].pool == .paused else { return }
        slots[slot].pool = .detached
        attach(slot, now: now.timeIntervalSinceReferenceDate)
    }

    /// An admin paused everything (running jobs are the caller's business).
    public mutating func pauseAll() { isPausedAll = true }
    public mutating func resumeAll() { isPausedAll = false }

    /// Counts a job as running that the scheduler did not start itself (e.g. found running at
    /// start-up). A queued job with that id leaves the queue.
    public mutating func jobStarted(_ job: QueuedJob, at time: Date) {
        if let slot = slotOf[job.id] { drop(Int(slot)) }
        forgetExpiry(of: job.id)
        guard running[job.id] == nil else { return }
        let classIndex = classIndexByName[job.className] ?? defaultClassIndex
        let tooBig = policy.classes[classIndex].maxMeteredJobBytes.map { (job.expectedBytes ?? 0) > $0 } ?? false
        addRunning(
            job.id,
            RunningJob(
                className: policy.classes[classIndex].name,
                classIndex: classIndex,
                kind: job.kind,
                owner: job.owner,
                host: intern(job.host),
                constraints: job.constraints.inWholePercent,
                tooBigForMetered: tooBig,
                rule: runningRule(classIndex: classIndex, constraints: job.constraints.inWholePercent, tooBig: tooBig),
                deadline: job.deadline?.timeIntervalSinceReferenceDate ?? .nan,
                onDeadline: job.onDeadline
            )
        )
        lastLinkActivity = max(lastLinkActivity, time.timeIntervalSinceReferenceDate)
    }

    /// A running job ended (success, failure, cancellation or preemption): its slots free up.
    public mutating func jobFinished(_ id: JobID, at time: Date) {
        guard let job = running.removeValue(forKey: id) else { return }
        if job.classIndex < classes.count { classes[job.classIndex].running -= 1 }
        Self.decrement(&runningByKind, job.kind)
        Self.decrement(&runningByOwner, job.owner)
        Self.decrement(&runningByHost, job.host)
        if job.rule.needsNetwork { lastLinkActivity = max(lastLinkActivity, time.timeIntervalSinceReferenceDate) }
        if let limit = policy.perHost?.value, runningByHost[job.host, default: 0] < limit { unpark(host: job.host) }
    }

    /// Bytes a job moved over a metered link, for the per-day budgets.
    public mutating func recordMeteredBytes(_ bytes: Int64, owner: OwnerID, className: String, at time: Date) {
        usage.roll(to: localTime.day(time.timeIntervalSinceReferenceDate))
        let name = policy.classes[classIndexByName[className] ?? defaultClassIndex].name
        usage.byClass[name, default: 0] += bytes
        usage.byOwner[owner, default: 0] += bytes
    }

    /// How many interned hosts beyond twice the jobs present are tolerated before a rebuild.
    static let hostsKeptIdle = 4096

    /// The interned host names, those of jobs gone included (for tests of their bound).
    public var internedHosts: Int { hostNames.count }

    /// A new policy (reload): every structure is rebuilt, O(n log n); running jobs stay counted.
    public mutating func updatePolicy(_ newPolicy: SchedulingPolicy, now: Date) {
        let queued = slotOf.values.map { (queuedJob(slots[Int($0)]), slots[Int($0)].pool == .paused) }.sorted {
            $0.0.id < $1.0.id
        }
        let wasRunning = running
        let wasHeld = held
        let oldHosts = hostNames
        // Expirations not yet reported are in no structure but this list: dropped, the job
        // would stay queued in the store with nothing in memory to run or expire it.
        let keep = (isPausedAll, statistics, usage, lastLinkActivity, turns, ownerSlot, ownerTurn, pendingExpired)
        // Fair shares carry on where they were, class by class, rather than start over.
        var passes: [String: Int] = [:]
        for (index, state) in classes.enumerated() { passes[policy.classes[index].name] = state.pass }
        let wasVirtualTime = virtualTime
        self = JobScheduler(policy: newPolicy, localTime: localTime)
        (isPausedAll, statistics, usage, lastLinkActivity, turns, ownerSlot, ownerTurn, pendingExpired) = keep
        virtualTime = wasVirtualTime
        for index in classes.indices { classes[index].pass = passes[policy.classes[index].name] ?? 0 }
        for (id, job) in wasRunning {
            let classIndex = classIndexByName[job.className] ?? defaultClassIndex
            var moved = job
            moved.classIndex = classIndex
            moved.className = policy.classes[classIndex].name
            moved.host = intern(oldHosts[Int(job.host)])
            moved.rule = runningRule(classIndex: classIndex, constraints: job.constraints, tooBig: job.tooBigForMetered)
            addRunning(id, moved)
        }
        for (job, paused) in queued {
            var job = job
            job.holdDown = wasHeld[job.id]?.holdDown
            enqueue(job, now: now)
            if paused { pause(job.id) }
            if let since = wasHeld[job.id]?.heldSince { held[job.id]?.heldSince = since }
        }
    }

    /// The local time rule changed (time zone, or a daylight-saving change passed).
    public mutating func updateLocalTime(_ newLocalTime: LocalTime) { localTime = newLocalTime }
}
