import Foundation
import LullCore
import PropertyBased
import Testing

/// Invariants over random policies, queues and world sequences. Each case is one seed; the
/// property framework picks seeds and reports a failing one (`.fixedSeed(...)` replays it).
@Suite struct SchedulingPropertyTests {
    @Test func invariantsHoldOverRandomQueuesAndWorldSequences() async {
        await propertyCheck(count: 1000, input: Gen.uint64()) { seed in
            var run = RandomRun(seed: seed)
            run.play(steps: 40)
            run.drain()
            #expect(run.failures.isEmpty, "seed \(seed): \(run.failures.prefix(5).joined(separator: "\n"))")
        }
    }

    @Test func classesGetSlotsWithinTheStarvationBound() async {
        await propertyCheck(count: 100, input: Gen.uint64()) { seed in
            var rng = SplitMix(seed: seed)
            var policy = SchedulingPolicy.defaults
            for index in policy.classes.indices {
                policy.classes[index].weight = rng.int(1...16)
                policy.classes[index].maxConcurrent = 100
                policy.classes[index].window = nil
            }
            policy.maxConcurrent = ConfiguredLimit(rng.int(1...3))
            policy.perHost = nil
            let names = policy.classes.map(\.name)
            let watched = rng.pick(names)
            let bound = policy.starvationBound(forClass: watched)!
            let competitors = names.filter { $0 != watched && rng.chance(0.7) }
            var scheduler = JobScheduler(policy: policy)
            var nextID: Int64 = 1
            var now = at(hours(2))
            func submit(_ className: String) {
                scheduler.enqueue(job(nextID, className, host: "h\(nextID % 7)"), now: now)
                nextID += 1
            }
            for _ in 0..<30 { submit(watched) }
            var sinceWatched = 0
            var worstGap = 0
            var watchedStarts = 0
            for _ in 0..<200 {
                // A continuous stream: every class, the watched one too, always has work queued.
                for name in competitors + [watched] { for _ in 0..<2 { submit(name) } }
                let decision = scheduler.decide(world: Worlds.pluggedIn, now: now)
                for started in decision.start {
                    if started.className == watched {
                        watchedStarts += 1
                        sinceWatched = 0
                    } else {
                        sinceWatched += 1
                        worstGap = max(worstGap, sinceWatched)
                    }
                }
                // Everything running finishes: each step frees every slot again.
                for id in scheduler.runningIDs { scheduler.jobFinished(id, at: now) }
                now = now.addingTimeInterval(1)
            }
            #expect(watchedStarts > 0)
            #expect(worstGap <= bound, "class \(watched) waited \(worstGap) dispatches, bound \(bound)")
        }
    }

    @Test func backgroundStartsWithinTheBoundUnderAnInteractiveStream() {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(1)
        var scheduler = JobScheduler(policy: policy)
        let bound = policy.starvationBound(forClass: "background")!
        var now = at(hours(12))
        var nextID: Int64 = 1
        for _ in 0..<10 {
            scheduler.enqueue(job(nextID, "interactive"), now: now)
            nextID += 1
        }
        _ = scheduler.decide(world: Worlds.pluggedIn, now: now)
        scheduler.enqueue(job(1000, "background"), now: now)
        var dispatches = 0
        var backgroundStarted = false
        while !backgroundStarted && dispatches <= bound {
            for id in scheduler.runningIDs { scheduler.jobFinished(id, at: now) }
            scheduler.enqueue(job(nextID, "interactive"), now: now)
            nextID += 1
            let decision = scheduler.decide(world: Worlds.pluggedIn, now: now)
            dispatches += decision.start.count
            backgroundStarted = decision.startedIDs.contains(1000)
            now = now.addingTimeInterval(1)
        }
        #expect(backgroundStarted)
        #expect(dispatches <= bound)
        // With interactive weight 8 and background 1, a steady state gives background 1 slot in 9.
        #expect(policy.starvationBound(forClass: "background") == 19)
    }
}

/// One random policy, queue and world sequence, checked after every decision.
struct RandomRun {
    var rng: SplitMix
    var policy: SchedulingPolicy
    var oracle: ConstraintOracle
    var scheduler: JobScheduler
    var now = at(0)
    var world = Worlds.pluggedIn
    var queued: [JobID: QueuedJob] = [:]
    var paused: Set<JobID> = []
    var running: [JobID: QueuedJob] = [:]
    var pausedAll = false
    var lastLinkActivity = -Double.infinity
    var nextID: Int64 = 1
    var failures: [String] = []
    /// "" is a job that talks to no host (a run job): `max_per_host` never holds it.
    let hosts = ["a.example", "b.example", "c.example", "d.example", ""]

    init(seed: UInt64) {
        rng = SplitMix(seed: seed)
        var policy = SchedulingPolicy.defaults
        for index in policy.classes.indices {
            policy.classes[index].maxConcurrent = rng.int(1...3)
            policy.classes[index].weight = rng.int(1...8)
            policy.classes[index].requiresAC = rng.chance(0.2)
            policy.classes[index].minBattery = rng.chance(0.5) ? Double(rng.int(0...60)) : nil
            policy.classes[index].allowMetered = rng.chance(0.6)
            policy.classes[index].allowCellular = rng.chance(0.5)
            policy.classes[index].maxCPUPressure = rng.chance(0.4) ? Double(rng.int(10...80)) : nil
            policy.classes[index].maxMemoryPressure = rng.chance(0.4) ? Double(rng.int(10...80)) : nil
            policy.classes[index].window =
                rng.chance(0.25)
                ? DailyWindow(startMinute: rng.int(0...1439), endMinute: rng.int(0...1439)) : nil
            policy.classes[index].maxMeteredJobBytes = rng.chance(0.2) ? 1_000_000 : nil
            policy.classes[index].coalesce = rng.chance(0.5)
        }
        policy.maxConcurrent = ConfiguredLimit(rng.int(1...6))
        policy.perHost = rng.chance(0.6) ? ConfiguredLimit(rng.int(1...3)) : nil
        policy.perOwner = rng.chance(0.5) ? ConfiguredLimit(rng.int(1...3)) : nil
        policy.perKind = rng.chance(0.4) ? [rng.pick(JobKind.allCases): ConfiguredLimit(rng.int(1...2))] : [:]
        policy.coalescingLead = rng.double(60..<600)
        policy.urgencyHorizon = rng.double(300..<1800)
        self.policy = policy
        let offset = rng.int(-12...14) * 3600
        oracle = ConstraintOracle(policy: policy, utcOffset: offset)
        scheduler = JobScheduler(policy: policy, localTime: LocalTime(utcOffset: offset))
        now = at(rng.double(0..<86_400))
    }

    mutating func randomWorld() -> WorldSnapshot {
        let connectivity: NetworkState.Connectivity =
            rng.chance(0.15) ? .offline : (rng.chance(0.2) ? .unknown : .online)
        return Worlds.world(
            onBattery: rng.chance(0.4),
            battery: rng.chance(0.9) ? Double(rng.int(0...100)) : nil,
            connectivity: connectivity,
            metered: rng.chance(0.35),
            cellular: rng.chance(0.2),
            cpu: rng.chance(0.5) ? Double(rng.int(0...100)) : nil,
            memory: rng.chance(0.5) ? Double(rng.int(0...100)) : nil
        )
    }

    mutating func randomJob() -> QueuedJob {
        defer { nextID += 1 }
        let names = policy.classes.map(\.name) + ["unknown-class"]
        let network = rng.pick(JobConstraints.Network.allCases)
        return QueuedJob(
            id: JobID(nextID),
            owner: OwnerID(UInt32(rng.int(1...3))),
            kind: rng.pick(JobKind.allCases),
            className: rng.chance(0.05) ? names.last! : rng.pick(Array(names.dropLast())),
            host: rng.pick(hosts),
            constraints: JobConstraints(
                network: network,
                requiresAC: rng.chance(0.15),
                minBattery: rng.chance(0.3) ? rng.pick([20, 50, 80]) : nil
            ),
            notBefore: rng.chance(0.3) ? now.addingTimeInterval(rng.double(0..<hours(3))) : nil,
            backoffUntil: rng.chance(0.15) ? now.addingTimeInterval(rng.double(0..<hours(1))) : nil,
            deadline: rng.chance(0.4) ? now.addingTimeInterval(rng.double(-600..<hours(4))) : nil,
            onDeadline: rng.chance(0.5) ? .run : .expire,
            expectedBytesDown: rng.chance(0.3) ? Int64(rng.int(0...2_000_000)) : nil,
            deferrable: rng.chance(0.33) ? nil : rng.chance(0.5)
        )
    }

    mutating func play(steps: Int) {
        for _ in 0..<steps {
            now = now.addingTimeInterval(rng.chance(0.2) ? 0 : rng.double(1..<3600))
            if rng.chance(0.3) { world = randomWorld() }
            let arrivals = rng.chance(0.02) ? 50 : rng.int(0...5)
            for _ in 0..<arrivals {
                let new = randomJob()
                queued[new.id] = new
                scheduler.enqueue(new, now: now)
            }
            if rng.chance(0.1), let id = queued.keys.sorted().randomElement(using: &rng) {
                scheduler.remove(id)
                queued[id] = nil
                paused.remove(id)
            }
            if rng.chance(0.1),
                let id = queued.keys.filter({ !paused.contains($0) }).sorted().randomElement(using: &rng)
            {
                scheduler.pause(id)
                paused.insert(id)
            }
            if rng.chance(0.1), let id = paused.sorted().randomElement(using: &rng) {
                scheduler.resume(id, now: now)
                paused.remove(id)
            }
            for id in running.keys.sorted() where rng.chance(0.4) { finish(id) }
            if rng.chance(0.05), let id = running.keys.sorted().first, var retry = running[id] {
                running[id] = nil
                if usesLink(retry) { lastLinkActivity = now.timeIntervalSince1970 }
                retry.backoffUntil = now.addingTimeInterval(rng.double(0..<600))
                queued[id] = retry
                scheduler.enqueue(retry, now: now)
            }
            if rng.chance(0.03) {
                pausedAll.toggle()
                if pausedAll { scheduler.pauseAll() } else { scheduler.resumeAll() }
            }
            decideAndCheck()
        }
    }

    /// Good world, no arrivals, every slot freed after each decision, time jumps to each
    /// `nextWakeup`: every job that is not paused must start or expire — no lost timer, no
    /// starvation, nothing stuck behind a parked host.
    mutating func drain() {
        world = Worlds.pluggedIn
        if pausedAll {
            pausedAll = false
            scheduler.resumeAll()
        }
        for _ in 0..<5000 {
            let decision = decideAndCheck(thorough: false)
            let busy = !decision.start.isEmpty || !running.isEmpty
            for id in running.keys.sorted() { finish(id) }
            if busy {
                now = now.addingTimeInterval(1)
            } else if let wake = decision.nextWakeup {
                now = wake
            } else {
                break
            }
        }
        let stuck = queued.keys.filter { !paused.contains($0) }.sorted()
        if !stuck.isEmpty {
            failures.append("never started: \(stuck.prefix(5).map { "\($0) \(queued[$0]!)" })")
        }
    }

    mutating func finish(_ id: JobID) {
        if let job = running.removeValue(forKey: id), usesLink(job) { lastLinkActivity = now.timeIntervalSince1970 }
        scheduler.jobFinished(id, at: now)
    }

    /// Jobs with `network: "none"` send nothing: they neither wake a costly link nor keep it awake.
    func usesLink(_ job: QueuedJob) -> Bool { job.constraints.network != .notNeeded }

    var linkInUse: Bool { running.values.contains(where: usesLink) }

    func classPolicy(_ job: QueuedJob) -> JobClassPolicy { oracle.classPolicy(job) }

    /// A job that sends nothing (`network: "none"`) has no traffic to hold for a ride.
    func isDeferrable(_ job: QueuedJob) -> Bool {
        (job.deferrable ?? classPolicy(job).coalesce) && job.deadline != nil && job.constraints.network != .notNeeded
    }

    func heldForCoalescing(_ job: QueuedJob, linkAwake: Bool) -> Bool {
        let costly = world.network.metered || world.network.cellular
        guard costly, !linkAwake, isDeferrable(job), let deadline = job.deadline else { return false }
        return now < deadline.addingTimeInterval(-policy.coalescingLead)
    }

    /// `thorough` adds the O(queue) checks (work conservation, silence until the next wakeup).
    @discardableResult
    mutating func decideAndCheck(thorough: Bool = true) -> SchedulingDecision {
        let awakeBefore = linkInUse || now.timeIntervalSince1970 - lastLinkActivity <= policy.linkTail
        let decision = scheduler.decide(world: world, now: now)
        let costly = world.network.metered || world.network.cellular
        var awake = awakeBefore
        for started in decision.start {
            guard let known = queued[started.id] else {
                failures.append("started \(started.id), which is not queued (removed, running or unknown)")
                continue
            }
            if paused.contains(started.id) { failures.append("started paused job \(started.id)") }
            if pausedAll { failures.append("started \(started.id) while everything is paused") }
            if !oracle.mayStart(known, world, now: now, pausedAll: pausedAll) {
                failures.append("started \(started.id) with an unmet constraint: \(known) in \(world) at \(now)")
            }
            if heldForCoalescing(known, linkAwake: awake) {
                failures.append("deferrable \(started.id) woke a sleeping costly link on its own")
            }
            if usesLink(known) {
                awake = awake || costly
                lastLinkActivity = now.timeIntervalSince1970
            }
            queued[started.id] = nil
            running[started.id] = known
        }
        for id in decision.expired {
            guard let known = queued[id], known.onDeadline == .expire, let deadline = known.deadline, deadline <= now
            else {
                failures.append(
                    "expired \(id) wrongly: \(String(describing: queued[id])) now \(now) paused \(paused.contains(id)) running \(running[id] != nil)"
                )
                continue
            }
            queued[id] = nil
            paused.remove(id)
        }
        checkLimits()
        if scheduler.queuedCount != queued.count {
            failures.append("scheduler holds \(scheduler.queuedCount) queued jobs, expected \(queued.count)")
        }
        if let wake = decision.nextWakeup, wake <= now {
            failures.append("nextWakeup \(wake) is not in the future (now \(now))")
        }
        if thorough {
            checkWorkConserving(linkAwake: awake || linkInUse)
            checkSilenceUntil(decision.nextWakeup)
        }
        return decision
    }

    mutating func checkLimits() {
        func over<Key: Hashable>(_ key: (QueuedJob) -> Key, _ limit: (Key) -> Int?, _ what: String) {
            var counts: [Key: Int] = [:]
            for job in running.values { counts[key(job), default: 0] += 1 }
            for (k, n) in counts { if let l = limit(k), n > l { failures.append("\(what) \(k): \(n) running > \(l)") } }
        }
        if running.count > policy.maxConcurrent.value {
            failures.append("global: \(running.count) > \(policy.maxConcurrent.value)")
        }
        let policy = self.policy
        let oracle = self.oracle
        over({ oracle.classPolicy($0).name }, { name in policy.classPolicy(named: name)!.maxConcurrent }, "class")
        over(\.kind, { policy.perKind[$0]?.value }, "kind")
        over(\.host, { host in host.isEmpty ? nil : policy.perHost?.value }, "host")
        over(\.owner, { _ in policy.perOwner?.value }, "owner")
    }

    /// After a decision, no queued job may be startable with room in every limit.
    mutating func checkWorkConserving(linkAwake: Bool) {
        guard running.count < policy.maxConcurrent.value else { return }
        let runningJobs = Array(running.values)
        let oracle = self.oracle
        func same(_ matches: (QueuedJob) -> Bool) -> Int { runningJobs.filter(matches).count }
        for job in queued.values where !paused.contains(job.id) {
            guard oracle.mayStart(job, world, now: now, pausedAll: pausedAll) else { continue }
            if let deadline = job.deadline, deadline <= now, job.onDeadline == .expire { continue }
            if heldForCoalescing(job, linkAwake: linkAwake) { continue }
            let cls = classPolicy(job)
            if same({ oracle.classPolicy($0).name == cls.name }) >= cls.maxConcurrent { continue }
            if let l = policy.perKind[job.kind]?.value, same({ $0.kind == job.kind }) >= l { continue }
            if let l = policy.perHost?.value, !job.host.isEmpty, same({ $0.host == job.host }) >= l { continue }
            if let l = policy.perOwner?.value, same({ $0.owner == job.owner }) >= l { continue }
            failures.append("job \(job.id) could start now but was left waiting: \(job) in \(world)")
            return
        }
    }

    /// Between now and `nextWakeup`, with no event, a decision starts and expires nothing.
    mutating func checkSilenceUntil(_ wake: Date?) {
        let horizon = wake ?? now.addingTimeInterval(2 * 86_400)
        var probe = scheduler
        let mid = now.addingTimeInterval(horizon.timeIntervalSince(now) * rng.double(0.01..<0.99))
        let quiet = probe.decide(world: world, now: mid)
        if !quiet.start.isEmpty || !quiet.expired.isEmpty {
            failures.append(
                "something happened at \(mid) before nextWakeup \(String(describing: wake)): started \(quiet.startedIDs), expired \(quiet.expired)"
            )
        }
    }
}
