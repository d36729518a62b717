import Foundation

extension JobScheduler {
    /// Every unmet condition of a queued job under `world` at `now`, in plain words with the
    /// rule and where it was configured. Empty when the job is not queued here, or when nothing
    /// holds it (it starts at the next decision). A job past its deadline with `run` does not
    /// list the discretionary conditions it overrides.
    public func waitingReasons(for id: JobID, world: WorldSnapshot, now date: Date) -> [WaitingReason] {
        guard let e = entry(id) else { return [] }
        let now = date.timeIntervalSinceReferenceDate
        let bucket = bucketInfo[Int(e.bucket)]
        let group = groups[bucket.group]
        let cls = policy.classes[group.key.classIndex]
        var reasons: [WaitingReason] = []

        if e.pool == .paused { reasons.append(WaitingReason(code: .paused, seen: "paused by a person")) }
        let overdueRun = e.hasDeadline && e.deadline <= now && e.onDeadline == .run
        let failing = conditions(ofGroup: bucket.group, world: world, now: now)
        for reason in groupReasons(for: failing, group: group, entry: e, world: world, now: now)
        where !(overdueRun && reason.code.isDiscretionary) {
            reasons.append(reason)
        }
        // While the conditions still fail, they are the reason; the hold-down only once they hold.
        if e.pool == .held, let hold = held[id], heldConditions(entry: e, failing: failing, now: now).rawValue == 0 {
            reasons.append(holdDownReason(hold, now: now))
        }
        if !e.notBefore.isNaN && e.notBefore > now {
            let until = Date(timeIntervalSinceReferenceDate: e.notBefore)
            reasons.append(
                WaitingReason(
                    code: .notBefore,
                    seen: "not_before " + WaitingReason.format(until),
                    setting: "not_before",
                    fromJob: true,
                    until: until
                )
            )
        }
        if !e.backoffUntil.isNaN && e.backoffUntil > now {
            let until = Date(timeIntervalSinceReferenceDate: e.backoffUntil)
            reasons.append(
                WaitingReason(code: .backoff, seen: "retry backoff until " + WaitingReason.format(until), until: until)
            )
        }
        let costly = world.network.metered || world.network.cellular
        let linkAwake = linkIsAwake(now: now)
        if e.deferrable, !overdueRun, costly, !linkAwake, e.readyAt <= now, e.deadline - policy.coalescingLead > now {
            let until = Date(timeIntervalSinceReferenceDate: e.deadline - policy.coalescingLead)
            reasons.append(
                WaitingReason(
                    code: .coalescing,
                    seen:
                        "deferrable job held until other traffic wakes the \(world.network.metered ? "metered" : "cellular") link",
                    limit: "coalesce",
                    setting: e.deferrableRequest == nil ? JobClassPolicy.Setting.coalesce.rawValue : "deferrable",
                    className: e.deferrableRequest == nil ? cls.name : nil,
                    origin: e.deferrableRequest == nil ? cls.origin(of: .coalesce) : nil,
                    fromJob: e.deferrableRequest != nil,
                    until: until
                )
            )
        }

        if running.count >= policy.maxConcurrent.value {
            reasons.append(
                WaitingReason(
                    code: .globalFull,
                    seen: "\(running.count) running",
                    limit: "max_concurrent \(policy.maxConcurrent.value)",
                    setting: "max_concurrent",
                    origin: policy.maxConcurrent.origin
                )
            )
        }
        if classes[group.key.classIndex].running >= cls.maxConcurrent {
            reasons.append(
                WaitingReason(
                    code: .classFull,
                    seen: "\(classes[group.key.classIndex].running) running",
                    limit: "max_concurrent \(cls.maxConcurrent)",
                    setting: JobClassPolicy.Setting.maxConcurrent.rawValue,
                    className: cls.name,
                    origin: cls.origin(of: .maxConcurrent)
                )
            )
        }
        if let limit = policy.perKind[e.kind], runningByKind[e.kind, default: 0] >= limit.value {
            reasons.append(
                WaitingReason(
                    code: .kindFull,
                    seen: "\(runningByKind[e.kind, default: 0]) \(e.kind.rawValue) jobs running",
                    limit: "per_kind.\(e.kind.rawValue) \(limit.value)",
                    setting: "per_kind.\(e.kind.rawValue)",
                    origin: limit.origin
                )
            )
        }
        if let limit = policy.perOwner, runningByOwner[e.owner, default: 0] >= limit.value {
            reasons.append(
                WaitingReason(
                    code: .ownerFull,
                    seen: "owner \(e.owner) runs \(runningByOwner[e.owner, default: 0])",
                    limit: "max_per_owner \(limit.value)",
                    setting: "max_per_owner",
                    origin: limit.origin
                )
            )
        }
        if let limit = policy.perHost, e.host != hostless, runningByHost[e.host, default: 0] >= limit.value {
            reasons.append(
                WaitingReason(
                    code: .hostFull,
                    seen: "host \(hostNames[Int(e.host)]) runs \(runningByHost[e.host, default: 0])",
                    limit: "max_per_host \(limit.value)",
                    setting: "max_per_host",
                    origin: limit.origin
                )
            )
        }
        if world.network.metered, groupRules[bucket.group].needsNetwork, let budget = policy.perOwnerMeteredBytesPerDay,
            meteredUsed(byOwner: e.owner, now: now) >= budget.value
        {
            reasons.append(
                WaitingReason(
                    code: .quota,
                    seen: "owner \(e.owner) used \(meteredUsed(byOwner: e.owner, now: now)) metered bytes today",
                    limit: "per_owner_metered_bytes_per_day \(budget.value)",
                    setting: "per_owner_metered_bytes_per_day",
                    origin: budget.origin,
                    until: localTime.nextMidnight(after: date)
                )
            )
        }
        return reasons
    }

    /// The reasons behind a group's failing conditions, citing class rule or job constraint.
    func groupReasons(
        for failing: ConditionSet,
        group: GroupState,
        entry e: SchedulerEntry,
        world: WorldSnapshot,
        now: Double
    )
        -> [WaitingReason]
    {
        guard !failing.isEmpty else { return [] }
        let cls = policy.classes[group.key.classIndex]
        let effective = group.effective
        var reasons: [WaitingReason] = []

        func rule(
            _ code: WaitingReason.Code,
            seen: String,
            limit: String,
            setting: JobClassPolicy.Setting,
            source: EffectiveConstraints.Source = .classPolicy(nil),
            jobSetting: String? = nil,
            until: Date? = nil
        ) {
            switch source {
            case .job:
                reasons.append(
                    WaitingReason(
                        code: code,
                        seen: seen,
                        limit: limit,
                        setting: jobSetting ?? setting.rawValue,
                        fromJob: true,
                        until: until
                    )
                )
            case .classPolicy:
                reasons.append(
                    WaitingReason(
                        code: code,
                        seen: seen,
                        limit: limit,
                        setting: setting.rawValue,
                        className: cls.name,
                        origin: cls.origin(of: setting),
                        until: until
                    )
                )
            }
        }

        if failing.contains(.paused) {
            reasons.append(WaitingReason(code: .paused, seen: "all jobs paused by an admin"))
        }
        if failing.contains(.offline) {
            reasons.append(WaitingReason(code: .offline, seen: "network offline (\(world.network.source))"))
        }
        let power = world.power
        if failing.contains(.onBattery) {
            rule(
                .onBattery,
                seen: "on battery (\(power.source))",
                limit: effective.requiresACSource == .job ? "requires_ac" : "requires_ac = true",
                setting: .requiresAC,
                source: effective.requiresACSource
            )
        }
        if failing.contains(.batteryBelow), let least = effective.minBattery {
            let seen = power.batteryPercent.map { "battery \(Self.number($0))%" } ?? "battery level unknown"
            rule(
                .batteryBelow,
                seen: seen,
                limit: "min_battery \(Self.number(least))",
                setting: .minBattery,
                source: effective.minBatterySource
            )
        }
        let link = world.network.interface.map { " (\($0))" } ?? ""
        if failing.contains(.metered) {
            if !effective.allowMetered {
                rule(
                    .metered,
                    seen: "network metered\(link)",
                    limit: effective.allowMeteredSource == .job ? "network = unmetered" : "allow_metered = false",
                    setting: .allowMetered,
                    source: effective.allowMeteredSource,
                    jobSetting: "network"
                )
            } else {
                let bytes = QueuedJob.total(e.expectedDown, e.expectedUp)
                rule(
                    .metered,
                    seen: "network metered\(link), expected \(bytes) bytes",
                    limit: "max_metered_job_bytes \(cls.maxMeteredJobBytes ?? 0)",
                    setting: .maxMeteredJobBytes
                )
            }
        }
        if failing.contains(.cellular) {
            rule(
                .cellular,
                seen: "network cellular\(link)",
                limit: effective.allowCellularSource == .job
                    ? "network = \(group.key.constraints.network.rawValue)" : "allow_cellular = false",
                setting: .allowCellular,
                source: effective.allowCellularSource,
                jobSetting: "network"
            )
        }
        if failing.contains(.cpuPressure), let cpu = world.pressure.cpu, let most = effective.maxCPUPressure {
            rule(
                .cpuPressure,
                seen: "cpu pressure \(Self.number(cpu))%",
                limit: "max_cpu_pressure \(Self.number(most))",
                setting: .maxCPUPressure
            )
        }
        if failing.contains(.memoryPressure), let memory = world.pressure.memory, let most = effective.maxMemoryPressure
        {
            rule(
                .memoryPressure,
                seen: "memory pressure \(Self.number(memory))%",
                limit: "max_memory_pressure \(Self.number(most))",
                setting: .maxMemoryPressure
            )
        }
        if failing.contains(.outsideWindow), let window = effective.window {
            let minute = Int(localTime.secondOfDay(now) / 60)
            rule(
                .outsideWindow,
                seen: "local time \(DailyWindow.clock(minute))",
                limit: "window \(window)",
                setting: .window,
                until: localTime.nextOpening(of: window, atOrAfter: Date(timeIntervalSinceReferenceDate: now))
            )
        }
        if failing.contains(.notIdle) {
            let (seen, until) = idleSeen(world, now: now)
            rule(
                .notIdle,
                seen: seen,
                limit: effective.requiresIdleSource == .job ? "requires_idle" : "requires_idle = true",
                setting: .requiresIdle,
                source: effective.requiresIdleSource,
                until: until
            )
        }
        if failing.contains(.quota), let budget = cls.meteredBytesPerDay {
            rule(
                .quota,
                seen: "class used \(meteredUsed(byClass: cls.name, now: now)) metered bytes today",
                limit: "metered_bytes_per_day \(budget)",
                setting: .meteredBytesPerDay,
                until: localTime.nextMidnight(after: Date(timeIntervalSinceReferenceDate: now))
            )
        }
        return reasons
    }

    /// How many queued jobs each world condition holds, each job counted once under the first
    /// condition its group fails (in the order `groupReasons` explains them); jobs paused one by
    /// one count as `.paused`. Jobs held only by limits, backoff or `not_before` are not counted.
    /// O(groups), so the service manager's status line can ask every second of a million-job queue.
    public func heldByCondition(world: WorldSnapshot, now date: Date) -> [WaitingReason.Code: Int] {
        let now = date.timeIntervalSinceReferenceDate
        var held: [WaitingReason.Code: Int] = [:]
        var live = 0
        for g in groups.indices where groups[g].live > 0 {
            live += groups[g].live
            let failing = conditions(ofGroup: g, world: world, now: now)
            if let first = Self.explanationOrder.first(where: { failing.contains($0.condition) }) {
                held[first.code, default: 0] += groups[g].live
            }
        }
        if !self.held.isEmpty { held[.holdDown] = self.held.count }
        if slotOf.count > live + self.held.count { held[.paused, default: 0] += slotOf.count - live - self.held.count }
        return held
    }

    static let explanationOrder: [(condition: ConditionSet, code: WaitingReason.Code)] = [
        (.paused, .paused), (.offline, .offline), (.onBattery, .onBattery), (.batteryBelow, .batteryBelow),
        (.metered, .metered), (.cellular, .cellular), (.cpuPressure, .cpuPressure), (.memoryPressure, .memoryPressure),
        (.outsideWindow, .outsideWindow), (.quota, .quota), (.notIdle, .notIdle),
    ]

    /// 18 → "18", 17.5 → "17.5".
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.1f", value)
    }
}
