import Foundation

/// Conditions that must keep holding while a job runs: which running jobs to stop when they
/// lapse, and the hold-down that keeps a stopped job from starting again until they have held
/// for a while, so a flapping charger or link cannot start and stop it in a loop.
extension JobScheduler {
    /// The hold-down after `stops` stops: 10 s, doubling with each further stop, at most 10 min.
    public static func holdDown(afterStops stops: Int) -> Double {
        min(10 * pow(2, Double(max(0, stops - 1))), 600)
    }

    /// Running jobs whose conditions no longer hold under `world` at `now` and that are to be
    /// stopped, each with the first lapsed condition as the reason. Not stopped: jobs of a class
    /// that lets them finish, jobs expected to end within the class's `finish_within` (from
    /// `secondsLeft`), jobs past a deadline with `on_deadline = run` for discretionary
    /// conditions, and jobs held only by pressure unless the class sets `stop_on_pressure`. A job
    /// is returned once; it stays counted as running until `jobFinished`.
    public mutating func lapsedRunningJobs(
        world: WorldSnapshot,
        now date: Date,
        secondsLeft: (JobID) -> Double?
    ) -> [(id: JobID, reason: WaitingReason.Code)] {
        guard !running.isEmpty else { return [] }
        let now = date.timeIntervalSinceReferenceDate
        usage.roll(to: localTime.day(now))
        let secondOfDay = localTime.secondOfDay(now)
        let idle = isIdle(world, now: now)
        var stops: [(id: JobID, reason: WaitingReason.Code)] = []
        for (id, job) in running where !job.stopping {
            let cls = policy.classes[job.classIndex]
            guard cls.onConditionsLost == .stop else { continue }
            let used = job.rule.meteredBudget == nil ? 0 : meteredUsed(byClass: cls.name, now: now)
            var lapsed = Self.conditions(
                job.rule,
                world: world,
                secondOfDay: secondOfDay,
                pausedAll: false,
                classUsed: used,
                idle: idle
            )
            if world.network.metered, job.rule.needsNetwork, let budget = policy.perOwnerMeteredBytesPerDay?.value,
                meteredUsed(byOwner: job.owner, now: now) >= budget
            {
                lapsed.insert(.quota)
            }
            if !cls.stopOnPressure { lapsed.subtract(Self.pressureConditions) }
            if !job.deadline.isNaN, job.deadline <= now, job.onDeadline == .run {
                lapsed.formIntersection(Self.overridingDeadline)
            }
            guard let reason = Self.explanationOrder.first(where: { lapsed.contains($0.condition) })?.code else {
                running[id]!.spared = false
                continue
            }
            if let left = secondsLeft(id), left <= cls.finishWithin {
                running[id]!.spared = true
                continue
            }
            running[id]!.stopping = true
            stops.append((id, reason))
        }
        return stops.sorted { $0.id < $1.id }
    }

    /// Whether a running job was left to finish within `finish_within` after its conditions
    /// lapsed: its progress decides again, as a transfer that slows down may no longer finish.
    public func isSpared(_ id: JobID) -> Bool { running[id]?.spared == true }

    /// A stop decided for a running job that was not carried out (its attempt was frozen) is
    /// forgotten, so the next check decides again.
    public mutating func reconsiderStop(of id: JobID) {
        running[id]?.stopping = false
    }

    /// Conditions a deadline with `on_deadline = run` does not override.
    static let overridingDeadline: ConditionSet = [.offline, .quota]

    /// The rule a running job's conditions are checked against, as a group of its class and
    /// constraints would have it.
    func runningRule(classIndex: Int, constraints: JobConstraints, tooBig: Bool) -> GroupRule {
        GroupRule(
            classIndex: classIndex,
            effective: EffectiveConstraints(classPolicy: policy.classes[classIndex], job: constraints),
            tooBigForMetered: tooBig,
            meteredBudget: policy.classes[classIndex].meteredBytesPerDay
        )
    }

    /// Held jobs whose conditions have held for their hold-down join the queue, and those past
    /// an `expire` deadline expire; the clock of those whose conditions fail starts again. Pressure does not count (it is sampled only
    /// while jobs wait on it, and still holds a job at its start).
    mutating func releaseHeld(failing: [ConditionSet], now: Double) {
        guard !held.isEmpty else { return }
        for (id, job) in held {
            guard let slot = slotOf[id].map(Int.init) else {
                held[id] = nil
                continue
            }
            // Held or not, a job still queued at an `expire` deadline expires (attach reports it).
            let entry = slots[slot]
            if entry.hasDeadline, entry.deadline <= now, entry.onDeadline == .expire {
                held[id] = nil
                slots[slot].pool = .detached
                attach(slot, now: now)
                continue
            }
            let lapsed = heldConditions(slot: slot, failing: failing, now: now)
            if lapsed.rawValue != 0 {
                held[id]!.heldSince = .nan
                continue
            }
            let since = job.heldSince.isNaN ? now : job.heldSince
            if now - since >= job.holdDown {
                held[id] = nil
                slots[slot].pool = .detached
                attach(slot, now: now)
            } else {
                held[id]!.heldSince = since
            }
        }
    }

    /// The conditions a held job waits on: its group's, less pressure and an admin's pause, and
    /// only the hard ones once it is past a deadline with `on_deadline = run`.
    func heldConditions(slot: Int, failing: [ConditionSet], now: Double) -> ConditionSet {
        let e = slots[slot]
        return heldConditions(entry: e, failing: failing[bucketInfo[Int(e.bucket)].group], now: now)
    }

    func heldConditions(entry e: SchedulerEntry, failing: ConditionSet, now: Double) -> ConditionSet {
        var lapsed = failing.subtracting(Self.pressureConditions)
        lapsed.remove(.paused)
        if e.hasDeadline, e.deadline <= now, e.onDeadline == .run { lapsed.formIntersection(Self.overridingDeadline) }
        return lapsed
    }

    /// When held or running jobs next need a decision without an event: a hold-down running
    /// out, a window a held job waits for opening, a held job's deadline, a running job's window
    /// closing.
    func heldAndRunningWakeup(failing: [ConditionSet], world: WorldSnapshot, now: Double) -> Double {
        var wake = Double.infinity
        for (id, job) in held {
            guard let slot = slotOf[id].map(Int.init) else { continue }
            let e = slots[slot]
            if e.hasDeadline, e.deadline > now { wake = min(wake, e.deadline) }
            let lapsed = heldConditions(slot: slot, failing: failing, now: now)
            if lapsed.rawValue == 0 {
                wake = min(wake, (job.heldSince.isNaN ? now : job.heldSince) + job.holdDown)
            } else if lapsed.rawValue & ~ConditionSet.timeDriven.rawValue == 0 {
                let rule = groupRules[bucketInfo[Int(e.bucket)].group]
                if lapsed.contains(.outsideWindow), let window = rule.window {
                    wake = min(wake, localTime.nextOpening(of: window, atOrAfter: now))
                }
                if lapsed.contains(.quota) { wake = min(wake, localTime.nextMidnight(after: now)) }
                if lapsed.contains(.notIdle), let reached = idleReached(world), reached > now {
                    wake = min(wake, reached)
                }
            }
        }
        for job in running.values where !job.stopping {
            guard let window = job.rule.window, !window.isWholeDay,
                window.contains(secondOfDay: localTime.secondOfDay(now)),
                policy.classes[job.classIndex].onConditionsLost == .stop
            else { continue }
            let closed = DailyWindow(startMinute: window.endMinute, endMinute: window.startMinute)
            wake = min(wake, localTime.nextOpening(of: closed, atOrAfter: now))
        }
        return wake
    }
}

extension JobScheduler {
    /// Why a held job waits even when its conditions hold now.
    func holdDownReason(_ hold: HeldJob, now: Double) -> WaitingReason {
        let seconds = Self.number(hold.holdDown)
        guard !hold.heldSince.isNaN else {
            return WaitingReason(
                code: .holdDown,
                seen: "stopped when its conditions lapsed; starts once they have held for \(seconds) s"
            )
        }
        let until = Date(timeIntervalSinceReferenceDate: hold.heldSince + hold.holdDown)
        return WaitingReason(
            code: .holdDown,
            seen:
                "stopped when its conditions lapsed; they have held for \(Self.number((now - hold.heldSince).rounded())) s of \(seconds) s",
            until: until
        )
    }
}
