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

    /// A new policy (reload): every structure is rebuilt, O(n log n); running jobs stay counted.
    public mutating func updatePolicy(_ newPolicy: SchedulingPolicy, now: Date) {
        let queued = slotOf.values.map { (queuedJob(slots[Int($0)]), slots[Int($0)].pool == .paused) }.sorted {
            $0.0.id < $1.0.id
        }
        let wasRunning = running
        let wasHeld = held
        let oldHosts = hostNames
        let keep = (isPausedAll, statistics, usage, lastLinkActivity, turns, ownerSlot, ownerTurn)
        self = JobScheduler(policy: newPolicy, localTime: localTime)
        (isPausedAll, statistics, usage, lastLinkActivity, turns, ownerSlot, ownerTurn) = keep
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

    // MARK: - Building blocks

    mutating func configureClasses() {
        precondition(!policy.classes.isEmpty, "a scheduling policy needs at least one class")
        for (index, cls) in policy.classes.enumerated() {
            classIndexByName[cls.name] = index
            classes.append(ClassState(maxConcurrent: cls.maxConcurrent, stride: Self.strideScale / max(1, cls.weight)))
        }
        defaultClassIndex = classIndexByName[JobClassName.default] ?? 0
        hostLimit = policy.perHost?.value ?? .max
        ownerLimit = policy.perOwner?.value ?? .max
        kindLimit = policy.perKind.mapValues(\.value)
        hostless = intern("")
    }

    /// Whether a costly link is in use or was within its tail: a job that needs the network runs
    /// or ran lately. (Jobs with `network: "none"` send nothing over it.)
    func linkIsAwake(now: Double) -> Bool {
        running.values.contains { $0.rule.needsNetwork } || now - lastLinkActivity <= policy.linkTail
    }

    mutating func intern(_ host: String) -> UInt32 {
        if let index = hostIndex[host] { return index }
        let index = UInt32(hostNames.count)
        hostNames.append(host)
        hostIndex[host] = index
        return index
    }

    mutating func group(for key: GroupKey) -> Int {
        if let index = groupIndex[key] { return index }
        let effective = EffectiveConstraints(classPolicy: policy.classes[key.classIndex], job: key.constraints)
        let state = GroupState(key: key, effective: effective)
        let rule = GroupRule(
            classIndex: key.classIndex,
            effective: effective,
            tooBigForMetered: key.tooBigForMetered,
            meteredBudget: policy.classes[key.classIndex].meteredBytesPerDay
        )
        let index: Int
        if let free = freeGroups.popLast() {
            index = free
            groups[index] = state
            groupRules[index] = rule
        } else {
            index = groups.count
            groups.append(state)
            groupRules.append(rule)
            loudTimers.append(Heap())
            deadlineTimers.append(Heap())
            quietTimers.append(Heap())
        }
        groupIndex[key] = index
        return index
    }

    mutating func bucket(for key: BucketKey) -> Int {
        if let index = bucketIndex[key] { return index }
        let classIndex = groups[key.group].key.classIndex
        let owner: Int
        if let known = ownerSlot[key.owner] {
            owner = known
        } else {
            owner = ownerTurn.count
            ownerTurn.append(0)
            ownerSlot[key.owner] = owner
        }
        let info = BucketInfo(
            group: key.group,
            classIndex: classIndex,
            owner: key.owner,
            ownerSlot: owner,
            kind: key.kind,
            groupPosition: groups[key.group].buckets.count,
            classPosition: classes[classIndex].buckets.count
        )
        let index: Int
        if let free = freeBuckets.popLast() {
            index = free
            buckets[index] = BucketState()
            bucketInfo[index] = info
        } else {
            index = buckets.count
            buckets.append(BucketState())
            bucketInfo.append(info)
        }
        bucketIndex[key] = index
        groups[key.group].buckets.append(index)
        classes[classIndex].buckets.append(index)
        return index
    }

    /// A job left bucket `b` for good: the bucket is freed with its last job, and its group with
    /// its last bucket. Their heaps hold only stale items by then (the job was detached first).
    mutating func leave(bucket b: Int) {
        buckets[b].members -= 1
        guard buckets[b].members == 0 else { return }
        let info = bucketInfo[b]
        bucketIndex[BucketKey(group: info.group, owner: info.owner, kind: info.kind)] = nil
        if let moved = Self.swapRemove(at: info.groupPosition, from: &groups[info.group].buckets) {
            bucketInfo[moved].groupPosition = info.groupPosition
        }
        if let moved = Self.swapRemove(at: info.classPosition, from: &classes[info.classIndex].buckets) {
            bucketInfo[moved].classPosition = info.classPosition
        }
        // A parked lane is listed under its host; a fresh bucket here must not leave the old
        // entry behind, or a host that stays full collects one per bucket ever parked on it.
        for (host, lane) in buckets[b].lanes where lane.parked {
            parkedLanes[host]?.removeAll { $0 == b }
            if parkedLanes[host]?.isEmpty == true { parkedLanes[host] = nil }
        }
        buckets[b] = BucketState()
        freeBuckets.append(b)
        guard groups[info.group].buckets.isEmpty else { return }
        let g = info.group
        groupIndex[groups[g].key] = nil
        loudTimers[g] = Heap()
        deadlineTimers[g] = Heap()
        quietTimers[g] = Heap()
        freeGroups.append(g)
    }

    /// Removes `array[index]` by moving the last element into its place; returns the moved
    /// element, if one moved.
    static func swapRemove(at index: Int, from array: inout [Int]) -> Int? {
        let last = array.removeLast()
        guard index < array.count else { return nil }
        array[index] = last
        return last
    }

    mutating func addRunning(_ id: JobID, _ job: RunningJob) {
        running[id] = job
        classes[job.classIndex].running += 1
        runningByKind[job.kind, default: 0] += 1
        runningByOwner[job.owner, default: 0] += 1
        runningByHost[job.host, default: 0] += 1
    }

    static func decrement<Key: Hashable>(_ counts: inout [Key: Int], _ key: Key) {
        let left = counts[key, default: 0] - 1
        counts[key] = left > 0 ? left : nil
    }

    func queuedJob(_ e: SchedulerEntry) -> QueuedJob {
        let group = groups[bucketInfo[Int(e.bucket)].group]
        func date(_ t: Double) -> Date? { t.isNaN ? nil : Date(timeIntervalSinceReferenceDate: t) }
        return QueuedJob(
            id: e.id,
            owner: e.owner,
            kind: e.kind,
            className: policy.classes[group.key.classIndex].name,
            host: hostNames[Int(e.host)],
            constraints: group.key.constraints,
            notBefore: date(e.notBefore),
            backoffUntil: date(e.backoffUntil),
            deadline: date(e.deadline),
            onDeadline: e.onDeadline,
            expectedBytesDown: e.expectedDown >= 0 ? e.expectedDown : nil,
            expectedBytesUp: e.expectedUp >= 0 ? e.expectedUp : nil,
            deferrable: e.deferrableRequest
        )
    }

    mutating func allocate(_ entry: SchedulerEntry) -> Int {
        if let slot = freeSlots.popLast() {
            slots[Int(slot)] = entry
            return Int(slot)
        }
        slots.append(entry)
        return slots.count - 1
    }

    /// Removes a queued job from every structure (its heap items go stale) and frees its slot.
    mutating func drop(_ slot: Int) {
        detach(slot)
        slotOf[slots[slot].id] = nil
        freeSlots.append(UInt32(slot))
        leave(bucket: Int(slots[slot].bucket))
    }

    /// Takes a job out of its pool's counts; its heap items go stale (new generation).
    mutating func detach(_ slot: Int) {
        let bucket = Int(slots[slot].bucket)
        let group = bucketInfo[bucket].group
        switch slots[slot].pool {
        case .ready:
            buckets[bucket].ready -= 1
            groups[group].live -= 1
        case .timed:
            groups[group].live -= 1
        case .held:
            held[slots[slot].id] = nil
        case .paused, .detached:
            break
        }
        generation &+= 1
        slots[slot].pool = .detached
        slots[slot].gen = generation
        detachesSinceCompaction += 1
    }

    /// Puts a detached job where its timing says, with the timers of its next transitions.
    mutating func attach(_ slot: Int, now: Double) {
        var e = slots[slot]
        guard e.pool == .detached else { return }
        let id = e.id
        let ref = UInt32(slot)
        let bucket = Int(e.bucket)
        let group = bucketInfo[bucket].group
        let deadline = e.deadline
        let pastDeadline = e.hasDeadline && deadline <= now
        if pastDeadline && e.onDeadline == .expire {
            pendingExpired.append(id)
            drop(slot)
            return
        }
        groups[group].live += 1
        if e.hasDeadline && !pastDeadline {
            addTimer(to: \.deadlineTimers, group: group, TimerItem(time: deadline, slot: ref, gen: e.gen))
        }
        let readyAt = e.readyAt
        if readyAt > now {
            e.pool = .timed
            slots[slot] = e
            let timer = TimerItem(time: readyAt, slot: ref, gen: e.gen)
            // Past its deadline, its readiness is a deadline event: it may start however the world is.
            if pastDeadline {
                addTimer(to: \.deadlineTimers, group: group, timer)
            } else {
                addTimer(to: \.loudTimers, group: group, timer)
            }
            return
        }
        e.pool = .ready
        slots[slot] = e
        let item: PoolItem
        if pastDeadline {
            item = PoolItem(tier: PoolItem.overdue, gen: e.gen, time: deadline, id: id, slot: ref)
        } else if e.deferrable && deadline - policy.coalescingLead > now {
            item = PoolItem(tier: PoolItem.rider, gen: e.gen, time: deadline, id: id, slot: ref)
            addTimer(
                to: \.loudTimers,
                group: group,
                TimerItem(time: deadline - policy.coalescingLead, slot: ref, gen: e.gen)
            )
        } else if e.hasDeadline && deadline - policy.urgencyHorizon <= now {
            item = PoolItem(tier: PoolItem.urgent, gen: e.gen, time: deadline, id: id, slot: ref)
        } else {
            item = PoolItem(tier: PoolItem.ordinary, gen: e.gen, time: 0, id: id, slot: ref)
            if e.hasDeadline {
                addTimer(
                    to: \.quietTimers,
                    group: group,
                    TimerItem(time: deadline - policy.urgencyHorizon, slot: ref, gen: e.gen)
                )
            }
        }
        buckets[bucket].ready += 1
        insert(item, bucket: bucket, host: e.host)
    }

    mutating func addTimer(to heaps: WritableKeyPath<JobScheduler, [Heap<TimerItem>]>, group: Int, _ timer: TimerItem) {
        self[keyPath: heaps][group].insert(timer)
        earliestTimer = min(earliestTimer, timer.time)
    }

    mutating func replace(_ slot: Int, now: Double) {
        detach(slot)
        attach(slot, now: now)
    }

    mutating func insert(_ item: PoolItem, bucket b: Int, host: UInt32) {
        // One hash lookup, and the lane changed in place (a copy would copy its heap).
        if let ref = Self.push(item, into: &buckets[b].lanes[host, default: Lane()], host: host) {
            buckets[b].laneHeap.insert(ref)
        }
    }

    /// Adds `item` to `lane`; returns the lane's new reference when `item` became its best.
    private static func push(_ item: PoolItem, into lane: inout Lane, host: UInt32) -> LaneRef? {
        let oldTop = lane.heap.min
        lane.heap.insert(item)
        guard !lane.parked, oldTop.map({ item < $0 }) ?? true else { return nil }
        lane.version &+= 1
        return LaneRef(top: item, host: host, version: lane.version)
    }

    /// Drops stale items from the top of a lane; removes the lane when it empties.
    /// Returns the lane's live top, if any.
    mutating func cleanLane(bucket b: Int, host: UInt32) -> PoolItem? {
        while let top = buckets[b].lanes[host]?.heap.min {
            if slots[Int(top.slot)].gen == top.gen { return top }
            buckets[b].lanes[host]!.heap.removeMin()
        }
        buckets[b].lanes[host] = nil
        return nil
    }

    /// The best ready job of a bucket over the lanes whose host has a free slot. Lanes of full
    /// hosts met on the way are parked (they come back when their host frees a slot).
    mutating func top(ofBucket b: Int) -> (item: PoolItem, host: UInt32)? {
        while let ref = buckets[b].laneHeap.min {
            // Read lane fields one at a time: holding a copy of a lane would make the next
            // mutation copy its whole heap.
            guard buckets[b].lanes[ref.host]?.version == ref.version, buckets[b].lanes[ref.host]?.parked == false,
                let top = cleanLane(bucket: b, host: ref.host)
            else {
                buckets[b].laneHeap.removeMin()
                continue
            }
            let hostFull = ref.host != hostless && runningByHost[ref.host, default: 0] >= hostLimit
            if top == ref.top && !hostFull { return (top, ref.host) }
            buckets[b].laneHeap.removeMin()
            buckets[b].lanes[ref.host]!.version &+= 1
            if hostFull {
                buckets[b].lanes[ref.host]!.parked = true
                parkedLanes[ref.host, default: []].append(b)
            } else {
                buckets[b].laneHeap.insert(
                    LaneRef(top: top, host: ref.host, version: buckets[b].lanes[ref.host]!.version)
                )
            }
        }
        return nil
    }

    mutating func unpark(host: UInt32) {
        guard let parked = parkedLanes.removeValue(forKey: host) else { return }
        for b in parked where buckets[b].lanes[host]?.parked == true {
            buckets[b].lanes[host]!.parked = false
            buckets[b].lanes[host]!.version &+= 1
            guard let top = cleanLane(bucket: b, host: host) else { continue }
            buckets[b].laneHeap.insert(LaneRef(top: top, host: host, version: buckets[b].lanes[host]!.version))
        }
    }

    /// Rebuilds every heap without its stale items once they may outnumber the live ones:
    /// O(n), at most once per n re-placements, so O(1) amortised.
    mutating func compactIfNeeded() {
        guard detachesSinceCompaction > slotOf.count + 4096 else { return }
        detachesSinceCompaction = 0
        let slots = self.slots
        func live(_ item: PoolItem) -> Bool { slots[Int(item.slot)].gen == item.gen }
        func live(_ timer: TimerItem) -> Bool { slots[Int(timer.slot)].gen == timer.gen }
        for b in buckets.indices {
            var refs: [LaneRef] = []
            for host in Array(buckets[b].lanes.keys) {
                var lane = buckets[b].lanes.removeValue(forKey: host)!
                lane.heap = Heap(lane.heap.unordered.filter(live))
                guard let top = lane.heap.min else { continue }
                lane.version &+= 1
                if !lane.parked { refs.append(LaneRef(top: top, host: host, version: lane.version)) }
                buckets[b].lanes[host] = lane
            }
            buckets[b].laneHeap = Heap(refs)
        }
        for g in groups.indices {
            loudTimers[g] = Heap(loudTimers[g].unordered.filter(live))
            deadlineTimers[g] = Heap(deadlineTimers[g].unordered.filter(live))
            quietTimers[g] = Heap(quietTimers[g].unordered.filter(live))
        }
    }
}
