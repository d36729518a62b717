import Foundation
import HeapModule

extension JobScheduler {
    /// Decides what starts now under `world` at `now`, within every limit, and when to look
    /// again. The jobs returned count as running from here on.
    public mutating func decide(world: WorldSnapshot, now date: Date) -> SchedulingDecision {
        let now = date.timeIntervalSinceReferenceDate
        statistics.decisions += 1
        usage.roll(to: localTime.day(now))
        fireTimers(now: now)

        var failing: [ConditionSet] = []
        failing.reserveCapacity(groups.count)
        let secondOfDay = localTime.secondOfDay(now)
        let idle = isIdle(world, now: now)
        for g in groups.indices {
            let rule = groupRules[g]
            let used =
                rule.meteredBudget == nil ? 0 : meteredUsed(byClass: policy.classes[rule.classIndex].name, now: now)
            failing.append(
                Self.conditions(
                    rule,
                    world: world,
                    secondOfDay: secondOfDay,
                    pausedAll: isPausedAll,
                    classUsed: used,
                    idle: idle
                )
            )
        }
        releaseHeld(failing: failing, now: now)
        let statuses = failing.map(GroupStatus.init)

        let costly = world.network.metered || world.network.cellular
        var awake = linkIsAwake(now: now)
        var decision = SchedulingDecision()
        while running.count < policy.maxConcurrent.value {
            guard let pick = next(statuses: statuses, ridersAllowed: !costly || awake, metered: world.network.metered)
            else { break }
            // A job that needs no network neither wakes the link nor keeps it awake.
            let usesLink = groupRules[bucketInfo[pick.bucket].group].needsNetwork
            let job = start(pick.item, bucket: pick.bucket, host: pick.host)
            virtualTime = pick.pass
            classes[pick.classIndex].pass = pick.pass + classes[pick.classIndex].stride
            if costly && pick.item.tier == PoolItem.rider { decision.coalesced.append(job.id) }
            if costly && !awake && usesLink { decision.linkWakeups += 1 }
            if usesLink {
                awake = true
                lastLinkActivity = max(lastLinkActivity, now)
            }
            decision.start.append(job)
        }
        decision.expired = pendingExpired
        pendingExpired = []
        decision.nextWakeup = nextWakeup(failing: failing, statuses: statuses, world: world, now: now)

        statistics.started += decision.start.count
        statistics.coalesced += decision.coalesced.count
        statistics.linkWakeups += decision.linkWakeups
        statistics.expired += decision.expired.count
        compactIfNeeded()
        return decision
    }

    /// What a hypothetical world would start now and why the other jobs would wait. Changes
    /// nothing (it works on a copy: O(n) for the copy, which is fine for a command a person runs).
    /// With `owner`, only that owner's waiting jobs are explained and counted (the limit applies
    /// to them, not to everyone's lowest ids).
    public func simulate(
        world: WorldSnapshot,
        now: Date,
        explainLimit: Int = 100,
        owner: OwnerID? = nil
    ) -> SchedulingSimulation {
        var copy = self
        let decision = copy.decide(world: world, now: now)
        // The lowest `explainLimit` ids, O(n log k).
        var lowest = Heap<JobID>()
        var count = 0
        for (id, slot) in copy.slotOf {
            if let owner, copy.slots[Int(slot)].owner != owner { continue }
            count += 1
            if lowest.count < explainLimit {
                lowest.insert(id)
            } else if let max = lowest.max, id < max {
                lowest.replaceMax(with: id)
            }
        }
        let waiting = lowest.unordered.sorted().map {
            SchedulingSimulation.WaitingJob(id: $0, reasons: copy.waitingReasons(for: $0, world: world, now: now))
        }
        return SchedulingSimulation(decision: decision, waiting: waiting, waitingCount: count)
    }

    // MARK: - Internals

    /// Applies every transition due by `now` (readiness, release, urgency, deadline): O(groups + due · log n).
    mutating func fireTimers(now: Double) {
        guard now >= earliestTimer else { return }
        var earliest = Double.infinity
        for g in groups.indices {
            while let timer = loudTimers[g].min, timer.time <= now {
                loudTimers[g].removeMin()
                if slots[Int(timer.slot)].gen == timer.gen { replace(Int(timer.slot), now: now) }
            }
            while let timer = deadlineTimers[g].min, timer.time <= now {
                deadlineTimers[g].removeMin()
                if slots[Int(timer.slot)].gen == timer.gen { replace(Int(timer.slot), now: now) }
            }
            while let timer = quietTimers[g].min, timer.time <= now {
                quietTimers[g].removeMin()
                if slots[Int(timer.slot)].gen == timer.gen { replace(Int(timer.slot), now: now) }
            }
            // Firing only adds timers of this group, all later than now.
            for heap in [loudTimers[g], deadlineTimers[g], quietTimers[g]] {
                if let timer = heap.min { earliest = min(earliest, timer.time) }
            }
        }
        earliestTimer = earliest
    }

    /// The conditions a group fails under `world` at `now`.
    func conditions(ofGroup g: Int, world: WorldSnapshot, now: Double) -> ConditionSet {
        let rule = groupRules[g]
        let used = rule.meteredBudget == nil ? 0 : meteredUsed(byClass: policy.classes[rule.classIndex].name, now: now)
        return Self.conditions(
            rule,
            world: world,
            secondOfDay: localTime.secondOfDay(now),
            pausedAll: isPausedAll,
            classUsed: used,
            idle: isIdle(world, now: now)
        )
    }

    /// `idle`: whether the machine counts as idle now (`isIdle`), which takes the clock.
    static func conditions(
        _ rule: GroupRule,
        world: WorldSnapshot,
        secondOfDay: Double,
        pausedAll: Bool,
        classUsed: Int64,
        idle: Bool
    )
        -> ConditionSet
    {
        var failing: UInt16 = 0
        if pausedAll { failing |= ConditionSet.paused.rawValue }
        if rule.needsNetwork, world.network.connectivity == .offline { failing |= ConditionSet.offline.rawValue }
        if world.power.onBattery {
            if rule.requiresAC { failing |= ConditionSet.onBattery.rawValue }
            // `min_battery = 0` never holds a job, even while the charge is unknown.
            if !rule.minBattery.isNaN, rule.minBattery > 0, (world.power.batteryPercent ?? -1) < rule.minBattery {
                failing |= ConditionSet.batteryBelow.rawValue
            }
        }
        if world.network.metered && !rule.meteredOK { failing |= ConditionSet.metered.rawValue }
        if world.network.cellular && !rule.cellularOK { failing |= ConditionSet.cellular.rawValue }
        if let cpu = world.pressure.cpu, cpu > rule.maxCPU { failing |= ConditionSet.cpuPressure.rawValue }
        if let memory = world.pressure.memory, memory > rule.maxMemory {
            failing |= ConditionSet.memoryPressure.rawValue
        }
        if let window = rule.window, !window.contains(secondOfDay: secondOfDay) {
            failing |= ConditionSet.outsideWindow.rawValue
        }
        if world.network.metered, let budget = rule.meteredBudget, classUsed >= budget {
            failing |= ConditionSet.quota.rawValue
        }
        if rule.requiresIdle && !idle { failing |= ConditionSet.notIdle.rawValue }
        return ConditionSet(rawValue: failing)
    }

    func meteredUsed(byClass name: String, now: Double) -> Int64 {
        usage.day == localTime.day(now) ? usage.byClass[name, default: 0] : 0
    }

    func meteredUsed(byOwner owner: OwnerID, now: Double) -> Int64 {
        usage.day == localTime.day(now) ? usage.byOwner[owner, default: 0] : 0
    }

    struct Pick {
        var classIndex: Int
        var bucket: Int
        var host: UInt32
        var item: PoolItem
        var pass: Int
    }

    /// Weighted fair share between classes (stride scheduling): among classes with a startable
    /// job and a free class slot, the least pass wins (a class coming back is lifted to the
    /// virtual time, so idleness earns no credit); ties go to the earlier class.
    mutating func next(statuses: [GroupStatus], ridersAllowed: Bool, metered: Bool) -> Pick? {
        var best: Pick?
        for c in classes.indices where classes[c].running < classes[c].maxConcurrent {
            guard
                let (bucket, host, item) = candidate(
                    inClass: c,
                    statuses: statuses,
                    ridersAllowed: ridersAllowed,
                    metered: metered
                )
            else { continue }
            let pass = max(classes[c].pass, virtualTime)
            if best == nil || pass < best!.pass {
                best = Pick(classIndex: c, bucket: bucket, host: host, item: item, pass: pass)
            }
        }
        return best
    }

    /// Inside a class: jobs past or near their deadline first (earliest deadline), then the
    /// owner with the fewest running jobs (fair share between owners), then, between jobs of the
    /// same tier not near a deadline, the owner served longest ago (owners take turns when there
    /// are more of them than slots), then priority order.
    mutating func candidate(
        inClass c: Int,
        statuses: [GroupStatus],
        ridersAllowed: Bool,
        metered: Bool
    )
        -> (bucket: Int, host: UInt32, item: PoolItem)?
    {
        var chosen: (bucket: Int, host: UInt32, item: PoolItem, urgent: Bool, load: Int, turn: UInt64)?
        for b in classes[c].buckets where buckets[b].ready > 0 {
            let info = bucketInfo[b]
            let status = statuses[info.group]
            if case .blocked = status { continue }
            let owner = info.owner
            let load = runningByOwner[owner, default: 0]
            if load >= ownerLimit { continue }
            if let limit = kindLimit[info.kind], runningByKind[info.kind, default: 0] >= limit { continue }
            if metered, groupRules[info.group].needsNetwork, let budget = policy.perOwnerMeteredBytesPerDay?.value,
                usage.byOwner[owner, default: 0] >= budget
            {
                continue
            }
            guard let (item, host) = top(ofBucket: b), status.allows(tier: item.tier, ridersAllowed: ridersAllowed)
            else { continue }
            let urgent = item.tier <= PoolItem.urgent
            let turn = ownerTurn[info.ownerSlot]
            if let current = chosen {
                if current.urgent != urgent {
                    if current.urgent { continue }
                } else if current.load != load {
                    if current.load < load { continue }
                } else if !urgent && current.item.tier == item.tier && current.turn != turn {
                    // Deadlines keep their earliest-first order and riders stay behind ordinary
                    // jobs; turns are between jobs of the same standing.
                    if current.turn < turn { continue }
                } else if !(item < current.item) {
                    continue
                }
            }
            chosen = (b, host, item, urgent, load, turn)
        }
        return chosen.map { ($0.bucket, $0.host, $0.item) }
    }

    /// Takes the job `item` (the validated top of its bucket) out of the queue and counts it running.
    mutating func start(_ item: PoolItem, bucket b: Int, host: UInt32) -> QueuedJob {
        buckets[b].lanes[host]!.heap.removeMin()
        buckets[b].laneHeap.removeMin()
        buckets[b].lanes[host]!.version &+= 1
        if let top = buckets[b].lanes[host]!.heap.min {
            buckets[b].laneHeap.insert(LaneRef(top: top, host: host, version: buckets[b].lanes[host]!.version))
        } else {
            buckets[b].lanes[host] = nil
        }
        let entry = slots[Int(item.slot)]
        let job = queuedJob(entry)
        // Read before the drop, which may free the bucket and group for reuse.
        let group = groups[bucketInfo[b].group].key
        let rule = groupRules[bucketInfo[b].group]
        drop(Int(item.slot))
        let classIndex = bucketInfo[b].classIndex
        turns += 1
        ownerTurn[bucketInfo[b].ownerSlot] = turns
        addRunning(
            entry.id,
            RunningJob(
                className: policy.classes[classIndex].name,
                classIndex: classIndex,
                kind: entry.kind,
                owner: entry.owner,
                host: entry.host,
                constraints: group.constraints,
                tooBigForMetered: group.tooBigForMetered,
                rule: rule,
                deadline: entry.deadline,
                onDeadline: entry.onDeadline
            )
        )
        return job
    }

    static let pressureConditions: ConditionSet = [.cpuPressure, .memoryPressure]

    /// Applies every transition due by `now` (a job's `not_before` or backoff passing, a
    /// release, a deadline): what `decide` does first. Before asking `pressureDependence`,
    /// so jobs that become ready at this moment count.
    public mutating func advance(to date: Date) {
        fireTimers(now: date.timeIntervalSinceReferenceDate)
    }

    /// The earliest future time something could start or expire with no other event.
    mutating func nextWakeup(
        failing: [ConditionSet],
        statuses: [GroupStatus],
        world: WorldSnapshot,
        now: Double
    ) -> Date? {
        var wake = Double.infinity
        let slots = self.slots
        func live(_ timer: TimerItem) -> Bool { slots[Int(timer.slot)].gen == timer.gen }
        for g in groups.indices where groups[g].live > 0 {
            while let timer = deadlineTimers[g].min, !live(timer) { deadlineTimers[g].removeMin() }
            if let timer = deadlineTimers[g].min { wake = min(wake, timer.time) }
            // Pressure is no event: nothing samples it until a ready job waits on it, so a group
            // held by pressure (alone or beside a time rule) still wakes at its timers, and the
            // wake-up reads pressure afresh. Otherwise a stale reading held it for good.
            let f = failing[g].subtracting(Self.pressureConditions)
            if f.rawValue == 0 {
                while let timer = loudTimers[g].min, !live(timer) { loudTimers[g].removeMin() }
                if let timer = loudTimers[g].min { wake = min(wake, timer.time) }
            }
            if f.rawValue != 0 && f.rawValue & ~ConditionSet.timeDriven.rawValue == 0 {
                if f.contains(.outsideWindow), let window = groupRules[g].window {
                    wake = min(wake, localTime.nextOpening(of: window, atOrAfter: now))
                }
                if f.contains(.quota) { wake = min(wake, localTime.nextMidnight(after: now)) }
                if f.contains(.notIdle), let reached = idleReached(world), reached > now { wake = min(wake, reached) }
            }
        }
        if world.network.metered, let budget = policy.perOwnerMeteredBytesPerDay?.value,
            usage.byOwner.values.contains(where: { $0 >= budget }), !slotOf.isEmpty
        {
            wake = min(wake, localTime.nextMidnight(after: now))
        }
        wake = min(wake, heldAndRunningWakeup(failing: failing, world: world, now: now))
        return wake.isFinite ? Date(timeIntervalSinceReferenceDate: wake) : nil
    }
}
