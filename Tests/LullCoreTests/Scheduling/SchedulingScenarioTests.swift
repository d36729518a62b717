import Foundation
import LullCore
import Testing

@Suite struct SchedulingScenarioTests {
    /// The built-in classes, with a config origin on background's min_battery as a loader would set it.
    static var policy: SchedulingPolicy {
        var policy = SchedulingPolicy.defaults
        policy.classes[3].origins[.minBattery] = ConfigOrigin(
            file: "/etc/lull/lull.toml",
            line: 14,
            key: "classes.background.min_battery"
        )
        return policy
    }

    @Test func goingOnBatteryDefersBackgroundAndMaintenanceWhileInteractiveRuns() {
        var scheduler = JobScheduler(policy: Self.policy)
        let now = at(hours(2))  // 02:00, inside maintenance's 01:00–05:00 window
        scheduler.enqueue(job(1, "interactive"), now: now)
        scheduler.enqueue(job(2, "background"), now: now)
        scheduler.enqueue(job(3, "maintenance"), now: now)
        let onBattery = Worlds.battery(18)

        let decision = scheduler.decide(world: onBattery, now: now)
        #expect(decision.startedIDs == [1])
        #expect(decision.nextWakeup == nil, "nothing but a world change can release them: no timer")
        #expect(scheduler.codes(2, onBattery, now) == [.batteryBelow])
        #expect(scheduler.codes(3, onBattery, now) == [.onBattery])
        let reason = scheduler.waitingReasons(for: JobID(2), world: onBattery, now: now)[0]
        #expect(reason.description == "battery 18% < min_battery 30 (class background, /etc/lull/lull.toml:14)")
        #expect(reason.seen == "battery 18%" && reason.limit == "min_battery 30" && reason.className == "background")
        #expect(reason.origin?.key == "classes.background.min_battery")
        #expect(
            scheduler.waitingReasons(for: JobID(3), world: onBattery, now: now)[0].description
                == "on battery (UPower DisplayDevice), requires_ac = true (class maintenance, built-in default)"
        )

        // Plugging in releases them.
        let later = now.addingTimeInterval(60)
        #expect(Set(scheduler.decide(world: Worlds.pluggedIn, now: later).startedIDs) == [2, 3])
        #expect(scheduler.queuedCount == 0 && scheduler.runningCount == 3)
    }

    @Test func heldByConditionCountsEachJobUnderTheFirstConditionItsGroupFails() {
        var scheduler = JobScheduler(policy: Self.policy)
        let now = at(hours(12))  // outside maintenance's window as well as on battery
        for id: Int64 in 1...3 { scheduler.enqueue(job(id, "background"), now: now) }
        for id: Int64 in 4...5 { scheduler.enqueue(job(id, "maintenance"), now: now) }
        scheduler.enqueue(job(6, "interactive"), now: now)
        scheduler.enqueue(job(7, "background"), now: now)
        scheduler.pause(JobID(7))
        let onBattery = Worlds.battery(18)
        #expect(scheduler.decide(world: onBattery, now: now).startedIDs == [6])

        let held = scheduler.heldByCondition(world: onBattery, now: now)
        #expect(held == [.batteryBelow: 3, .onBattery: 2, .paused: 1])
        // The same tally, job by job, from the reasons `lullctl explain` shows.
        var tally: [WaitingReason.Code: Int] = [:]
        for id: Int64 in 1...7 {
            if let first = scheduler.waitingReasons(for: JobID(id), world: onBattery, now: now).first {
                tally[first.code, default: 0] += 1
            }
        }
        #expect(tally == held)
        #expect(scheduler.heldByCondition(world: Worlds.pluggedIn, now: now) == [.paused: 1, .outsideWindow: 2])
    }

    @Test func enoughBatteryLetsBackgroundRunButNotMaintenance() {
        var scheduler = JobScheduler(policy: Self.policy)
        let now = at(hours(2))
        scheduler.enqueue(job(1, "background"), now: now)
        scheduler.enqueue(job(2, "maintenance"), now: now)
        scheduler.enqueue(job(3, "utility"), now: now)
        #expect(Set(scheduler.decide(world: Worlds.battery(45), now: now).startedIDs) == [1, 3])
        #expect(scheduler.codes(2, Worlds.battery(45), now) == [.onBattery])
    }

    @Test func aMeteredLinkHoldsUnmeteredOnlyJobs() {
        var scheduler = JobScheduler()
        let now = at(hours(12))
        scheduler.enqueue(job(1, constraints: JobConstraints(network: .unmetered)), now: now)
        scheduler.enqueue(job(2), now: now)
        scheduler.enqueue(job(3, "background"), now: now)
        let decision = scheduler.decide(world: Worlds.metered, now: now)
        #expect(decision.startedIDs == [2])
        let jobReason = scheduler.waitingReasons(for: JobID(1), world: Worlds.metered, now: now)
        #expect(jobReason.map(\.code) == [.metered])
        #expect(jobReason[0].fromJob)
        #expect(jobReason[0].description == "network metered (wlan0), job's network = unmetered (job constraint)")
        #expect(
            scheduler.waitingReasons(for: JobID(3), world: Worlds.metered, now: now)[0].description
                == "network metered (wlan0), allow_metered = false (class background, built-in default)"
        )
        #expect(Set(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs) == [1, 3])
    }

    @Test func notCellularAllowsAMeteredHotspotButNotCellular() {
        var scheduler = JobScheduler()
        let now = at(0)
        scheduler.enqueue(job(1, constraints: JobConstraints(network: .notCellular)), now: now)
        #expect(scheduler.decide(world: Worlds.cellular, now: now).start.isEmpty)
        #expect(scheduler.codes(1, Worlds.cellular, now) == [.cellular])
        #expect(scheduler.decide(world: Worlds.metered, now: now).startedIDs == [1])
    }

    @Test func aDeadlineWithRunStartsAHeldJobAtItsDeadline() {
        var scheduler = JobScheduler()
        let now = at(hours(12))
        let deadline = now.addingTimeInterval(3600)
        scheduler.enqueue(job(1, "background", deadline: deadline, onDeadline: .run, deferrable: false), now: now)
        let onBattery = Worlds.battery(12)
        let first = scheduler.decide(world: onBattery, now: now)
        #expect(first.start.isEmpty)
        #expect(first.nextWakeup == deadline, "one timer, exactly at the deadline")
        #expect(scheduler.decide(world: onBattery, now: deadline.addingTimeInterval(-1)).start.isEmpty)
        let atDeadline = scheduler.decide(world: onBattery, now: deadline)
        #expect(atDeadline.startedIDs == [1])
    }

    @Test func aDeadlineNeverOverridesOfflineOrPause() {
        var scheduler = JobScheduler()
        let now = at(0)
        let deadline = now.addingTimeInterval(600)
        scheduler.enqueue(job(1, "background", deadline: deadline), now: now)
        scheduler.enqueue(job(2, "background", deadline: deadline), now: now)
        scheduler.pause(JobID(2))
        #expect(scheduler.decide(world: Worlds.offline, now: deadline).start.isEmpty)
        let reasons = scheduler.codes(1, Worlds.offline, deadline)
        #expect(reasons == [.offline])
        #expect(scheduler.codes(2, Worlds.battery(5), deadline).contains(.paused))
        // Back online on battery: the deadline overrides battery for job 1, never the pause of job 2.
        #expect(scheduler.decide(world: Worlds.battery(5), now: deadline.addingTimeInterval(1)).startedIDs == [1])
    }

    @Test func aDeadlineWithExpireIsReportedExpired() {
        var scheduler = JobScheduler()
        let now = at(0)
        let deadline = now.addingTimeInterval(600)
        scheduler.enqueue(job(1, "background", deadline: deadline, onDeadline: .expire), now: now)
        #expect(scheduler.decide(world: Worlds.battery(5), now: now).nextWakeup == deadline)
        let decision = scheduler.decide(world: Worlds.battery(5), now: deadline)
        #expect(decision.expired == [JobID(1)] && decision.start.isEmpty)
        #expect(!scheduler.isQueued(JobID(1)))
        #expect(decision.nextWakeup == nil)
    }

    @Test func maintenanceWaitsForItsWindowInLocalTime() {
        // UTC+2: 01:00 local is 23:00 UTC.
        var scheduler = JobScheduler(localTime: LocalTime(utcOffset: 7200))
        let now = at(hours(10))  // 12:00 local
        scheduler.enqueue(job(1, "maintenance"), now: now)
        let first = scheduler.decide(world: Worlds.pluggedIn, now: now)
        #expect(first.start.isEmpty)
        let opening = at(hours(23))
        #expect(first.nextWakeup == opening)
        let reason = scheduler.waitingReasons(for: JobID(1), world: Worlds.pluggedIn, now: now)
        #expect(reason.map(\.code) == [.outsideWindow])
        #expect(reason[0].until == opening)
        #expect(
            reason[0].description.hasPrefix(
                "local time 12:00, window 01:00–05:00 (class maintenance, built-in default)"
            )
        )
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: opening).startedIDs == [1])
    }

    @Test func perHostLimitHoldsTheRestAndReleasesOnFinish() {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(10)
        policy.perHost = ConfiguredLimit(
            2,
            origin: ConfigOrigin(file: "/etc/lull/lull.toml", line: 7, key: "limits.max_per_host")
        )
        var scheduler = JobScheduler(policy: policy)
        let now = at(0)
        for id in 1...4 { scheduler.enqueue(job(Int64(id), "interactive", host: "a.example"), now: now) }
        scheduler.enqueue(job(5, "interactive", host: "b.example"), now: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1, 2, 5])
        let reasons = scheduler.waitingReasons(for: JobID(3), world: Worlds.pluggedIn, now: now)
        #expect(reasons.map(\.code) == [.hostFull])
        #expect(reasons[0].description == "host a.example runs 2 ≥ max_per_host 2 (/etc/lull/lull.toml:7)")
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).start.isEmpty)
        scheduler.jobFinished(JobID(1), at: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [3])
    }

    /// `network: "none"`: a command that needs no network starts offline and on a link its class
    /// refuses (background: no metered, no cellular), and losing the network does not stop it;
    /// a job of the same class that needs the network waits.
    @Test func aJobThatNeedsNoNetworkIsHeldByNoLink() {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(10)
        var scheduler = JobScheduler(policy: policy)
        let now = at(0)
        let local = JobConstraints(network: .notNeeded)
        scheduler.enqueue(job(1, "background", kind: .run, host: "", constraints: local), now: now)
        scheduler.enqueue(job(2, "background", kind: .run, host: ""), now: now)
        #expect(scheduler.decide(world: Worlds.offline, now: now).startedIDs == [1])
        #expect(scheduler.codes(2, Worlds.offline, now) == [.offline])
        #expect(scheduler.decide(world: Worlds.cellular, now: now).start.isEmpty, "background refuses cellular")
        #expect(scheduler.codes(2, Worlds.cellular, now) == [.metered, .cellular])
        #expect(scheduler.lapsedRunningJobs(world: Worlds.offline, now: now, secondsLeft: { _ in nil }).isEmpty)
        scheduler.enqueue(job(3, "background", kind: .run, host: "", constraints: local), now: now)
        let started = scheduler.decide(world: Worlds.cellular, now: now)
        #expect(started.startedIDs == [3] && started.linkWakeups == 0, "it sends nothing over the link")
    }

    /// An owner's spent metered budget holds the jobs that use the link, not one that needs none.
    @Test func aSpentMeteredBudgetHoldsOnlyJobsThatUseTheLink() {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(10)
        policy.perOwnerMeteredBytesPerDay = ConfiguredLimit(1000)
        var scheduler = JobScheduler(policy: policy)
        let now = at(0)
        scheduler.recordMeteredBytes(5000, owner: OwnerID(1000), className: "default", at: now)
        scheduler.enqueue(job(1, kind: .run, host: "", constraints: JobConstraints(network: .notNeeded)), now: now)
        scheduler.enqueue(job(2, kind: .run, host: ""), now: now)
        #expect(scheduler.decide(world: Worlds.metered, now: now).startedIDs == [1])
        #expect(scheduler.codes(2, Worlds.metered, now) == [.quota])
    }

    /// Run jobs talk to no host: however many run, `max_per_host` holds none of them.
    @Test func jobsWithoutAHostAreNotHeldByThePerHostLimit() {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(10)
        policy.perHost = ConfiguredLimit(2)
        var scheduler = JobScheduler(policy: policy)
        let now = at(0)
        for id in 1...4 { scheduler.enqueue(job(Int64(id), "interactive", host: ""), now: now) }
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1, 2, 3, 4])
    }

    @Test func perOwnerLimitAndFairShareBetweenOwners() {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(10)
        policy.perOwner = ConfiguredLimit(1)
        var scheduler = JobScheduler(policy: policy)
        let now = at(0)
        for id in 1...3 { scheduler.enqueue(job(Int64(id), owner: 1000), now: now) }
        for id in 4...6 { scheduler.enqueue(job(Int64(id), owner: 1001), now: now) }
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1, 4])
        #expect(scheduler.codes(2, Worlds.pluggedIn, now) == [.ownerFull])

        // Without a per-owner cap, the owner with fewer running jobs still goes first.
        var fair = SchedulingPolicy.defaults
        fair.maxConcurrent = ConfiguredLimit(2)
        var shared = JobScheduler(policy: fair)
        for id in 1...5 { shared.enqueue(job(Int64(id), owner: 1000), now: now) }
        shared.enqueue(job(6, owner: 1001), now: now)
        #expect(shared.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1, 6])
    }

    /// More owners than slots: with as many jobs running each, the owner served longest ago goes
    /// next, so a second owner's jobs do not wait behind every job of the first (lower ids).
    @Test func ownersTakeTurnsWhenSlotsAreScarce() {
        var scheduler = JobScheduler(maxConcurrent: 1)
        let now = at(0)
        for id in 1...4 { scheduler.enqueue(job(Int64(id), owner: 1000), now: now) }
        for id in 5...8 { scheduler.enqueue(job(Int64(id), owner: 2000), now: now) }
        for id in 9...10 { scheduler.enqueue(job(Int64(id), owner: 3000), now: now) }
        // Each owner's own jobs still go in submission order.
        #expect(scheduler.drain(world: Worlds.pluggedIn, now: now) == [1, 5, 9, 2, 6, 10, 3, 7, 4, 8])
    }

    /// A deferrable job (tier 3, rides along) stays behind another owner's ordinary job, even
    /// when its owner has waited longer for a turn.
    @Test func turnsDoNotLiftRidersAboveOrdinaryJobs() {
        var scheduler = JobScheduler(maxConcurrent: 1)
        let now = at(0)
        scheduler.enqueue(job(1, "background", owner: 1000), now: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1])
        scheduler.jobFinished(JobID(1), at: now)
        scheduler.enqueue(job(2, "background", owner: 1000), now: now)
        scheduler.enqueue(job(3, "background", owner: 2000, deadline: at(hours(72)), deferrable: true), now: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [2])
    }

    /// A bucket freed and made again while its host stays full is listed once as parked, not
    /// once per life.
    @Test func aFullHostKeepsOneParkedEntryPerLane() {
        var scheduler = JobScheduler(maxConcurrent: 10) { $0.perHost = ConfiguredLimit(1) }
        let now = at(0)
        scheduler.enqueue(job(1, host: "h"), now: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1])
        for id in Int64(2)...200 {
            scheduler.enqueue(job(id, owner: 2000, host: "h"), now: now)
            #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).start.isEmpty)
            scheduler.remove(JobID(id))
        }
        #expect(scheduler.parkedLaneCount <= 1)
        scheduler.enqueue(job(201, owner: 2000, host: "h"), now: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).start.isEmpty)
        scheduler.jobFinished(JobID(1), at: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [201])
    }

    /// Urgent jobs keep earliest-deadline order between owners; turns apply to ordinary work.
    @Test func deadlinesOrderUrgentJobsBeforeTurns() {
        var scheduler = JobScheduler(maxConcurrent: 1)
        let now = at(0)
        scheduler.enqueue(job(1, owner: 1000, deadline: at(60)), now: now)
        scheduler.enqueue(job(2, owner: 1000, deadline: at(120)), now: now)
        scheduler.enqueue(job(3, owner: 2000, deadline: at(180)), now: now)
        #expect(scheduler.drain(world: Worlds.pluggedIn, now: now) == [1, 2, 3])
    }

    /// Groups and buckets are freed with their last job and reused: a stream of jobs, each
    /// with constraints of its own, leaves the structures a decision walks at the size of what
    /// is queued now (they once grew with every distinct `min_battery` ever submitted).
    @Test func groupsAndBucketsOfGoneJobsAreReused() {
        var scheduler = JobScheduler(maxConcurrent: 4)
        var now = at(0)
        var next: Int64 = 1
        for round in 0..<500 {
            now = at(Double(round))
            // Eight jobs, each in a group of its own, from four owners and both kinds.
            for k in 0..<8 {
                let constraints = JobConstraints(minBattery: Double(round % 97) + Double(k) / 10)
                scheduler.enqueue(
                    job(next, owner: 1000 + UInt32(k % 4), kind: k % 2 == 0 ? .fetch : .push, constraints: constraints),
                    now: now
                )
                next += 1
            }
            // One is cancelled and one paused then resumed; the rest run to the end.
            scheduler.remove(JobID(next - 1))
            scheduler.pause(JobID(next - 2))
            scheduler.resume(JobID(next - 2), now: now)
            #expect(scheduler.drain(world: Worlds.pluggedIn, now: now).count == 7)
        }
        #expect(scheduler.runningCount == 0)
        #expect(scheduler.allocatedGroups <= 8)
        #expect(scheduler.allocatedBuckets <= 8)

        // A reused group holds its new constraints, not its old ones.
        scheduler.enqueue(job(next, constraints: JobConstraints(minBattery: 50)), now: now)
        #expect(scheduler.decide(world: Worlds.battery(40), now: now).start.isEmpty)
        #expect(scheduler.codes(next, Worlds.battery(40), now) == [.batteryBelow])
        #expect(scheduler.decide(world: Worlds.battery(60), now: now).startedIDs == [next])
    }

    /// Fractions of a percent share a group: a client cannot make one group per job.
    @Test func minBatteryAppliesInWholePercent() {
        var scheduler = JobScheduler(maxConcurrent: 10)
        let now = at(0)
        for (id, percent) in [(1, 30.2), (2, 30.7), (3, 31.0), (4, 30.95)] {
            scheduler.enqueue(job(Int64(id), constraints: JobConstraints(minBattery: percent)), now: now)
        }
        #expect(scheduler.allocatedGroups == 1)
        #expect(scheduler.decide(world: Worlds.battery(30.5), now: now).start.isEmpty)
        #expect(scheduler.codes(1, Worlds.battery(30.5), now) == [.batteryBelow])
        #expect(scheduler.decide(world: Worlds.battery(31), now: now).startedIDs == [1, 2, 3, 4])
    }

    @Test func classAndKindLimits() {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(10)
        policy.perKind = [.upload: ConfiguredLimit(1)]
        var scheduler = JobScheduler(policy: policy)
        let now = at(0)
        for id in 1...3 { scheduler.enqueue(job(Int64(id), "background", host: "h\(id)"), now: now) }
        scheduler.enqueue(job(4, kind: .upload, host: "u1"), now: now)
        scheduler.enqueue(job(5, kind: .upload, host: "u2"), now: now)
        #expect(Set(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs) == [1, 2, 4])
        #expect(scheduler.codes(3, Worlds.pluggedIn, now) == [.classFull])
        #expect(scheduler.codes(5, Worlds.pluggedIn, now) == [.kindFull])
    }

    @Test func pauseWins() {
        var scheduler = JobScheduler()
        let now = at(0)
        scheduler.enqueue(job(1, "interactive", deadline: now), now: now)
        scheduler.enqueue(job(2, "interactive"), now: now)
        scheduler.pause(JobID(1))
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [2])
        #expect(scheduler.codes(1, Worlds.pluggedIn, now) == [.paused])
        scheduler.pauseAll()
        scheduler.enqueue(job(3, "interactive", deadline: now), now: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now.addingTimeInterval(5)).start.isEmpty)
        #expect(scheduler.codes(3, Worlds.pluggedIn, now) == [.paused])
        scheduler.resumeAll()
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now.addingTimeInterval(6)).startedIDs == [3])
        scheduler.resume(JobID(1), now: now.addingTimeInterval(7))
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now.addingTimeInterval(7)).startedIDs == [1])
    }

    @Test func removedJobsNeverStart() {
        var scheduler = JobScheduler()
        let now = at(0)
        scheduler.enqueue(job(1, notBefore: now.addingTimeInterval(60)), now: now)
        scheduler.enqueue(job(2, notBefore: now.addingTimeInterval(60)), now: now)
        let removed = scheduler.remove(JobID(1))
        let removedAgain = scheduler.remove(JobID(1))
        #expect(removed && !removedAgain)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now.addingTimeInterval(60)).startedIDs == [2])
    }

    @Test func notBeforeAndBackoffSetOneTimer() {
        var scheduler = JobScheduler()
        let now = at(0)
        scheduler.enqueue(job(1, notBefore: now.addingTimeInterval(300)), now: now)
        scheduler.enqueue(job(2, backoffUntil: now.addingTimeInterval(120)), now: now)
        let first = scheduler.decide(world: Worlds.pluggedIn, now: now)
        #expect(first.start.isEmpty && first.nextWakeup == now.addingTimeInterval(120))
        #expect(scheduler.codes(1, Worlds.pluggedIn, now) == [.notBefore])
        #expect(scheduler.codes(2, Worlds.pluggedIn, now) == [.backoff])
        let second = scheduler.decide(world: Worlds.pluggedIn, now: now.addingTimeInterval(120))
        #expect(second.startedIDs == [2] && second.nextWakeup == now.addingTimeInterval(300))
        // A retry comes back through enqueue with its backoff.
        scheduler.enqueue(job(2, backoffUntil: now.addingTimeInterval(200)), now: now.addingTimeInterval(130))
        #expect(scheduler.runningCount == 0)
        #expect(
            scheduler.decide(world: Worlds.pluggedIn, now: now.addingTimeInterval(130)).nextWakeup
                == now.addingTimeInterval(200)
        )
    }

    @Test func anIdleQueueWaitingOnPowerSetsNoTimer() {
        var scheduler = JobScheduler()
        let now = at(hours(12))
        for id in 1...10_000 { scheduler.enqueue(job(Int64(id), "background", host: "h\(id % 50)"), now: now) }
        let decision = scheduler.decide(world: Worlds.battery(20), now: now)
        #expect(decision.start.isEmpty && decision.nextWakeup == nil)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1, 2])
    }

    @Test func deferrableJobsRideAlongOnAnAwakeMeteredLink() {
        var scheduler = JobScheduler()
        let now = at(0)
        let deadline = now.addingTimeInterval(3600)
        scheduler.enqueue(job(1, "utility", host: "t.example", deadline: deadline), now: now)
        scheduler.enqueue(job(2, "utility", host: "t.example", deadline: deadline.addingTimeInterval(600)), now: now)
        let held = scheduler.decide(world: Worlds.cellular, now: now)
        #expect(held.start.isEmpty)
        #expect(held.nextWakeup == deadline.addingTimeInterval(-SchedulingPolicy.defaults.coalescingLead))
        #expect(scheduler.codes(1, Worlds.cellular, now) == [.coalescing])
        // Unmetered, they are just ordinary work.
        var unmetered = scheduler
        #expect(unmetered.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1, 2])

        scheduler.enqueue(job(3, "interactive"), now: now.addingTimeInterval(10))
        let burst = scheduler.decide(world: Worlds.cellular, now: now.addingTimeInterval(10))
        #expect(burst.startedIDs == [3, 1, 2])
        #expect(burst.coalesced == [JobID(1), JobID(2)])
        #expect(burst.linkWakeups == 1)
        #expect(scheduler.statistics.coalesced == 2 && scheduler.statistics.linkWakeups == 1)
    }

    @Test func aHeldDeferrableJobIsReleasedBeforeItsDeadline() {
        var scheduler = JobScheduler()
        let now = at(0)
        let deadline = now.addingTimeInterval(3600)
        scheduler.enqueue(job(1, "utility", deadline: deadline), now: now)
        let release = scheduler.decide(world: Worlds.metered, now: now).nextWakeup!
        #expect(release < deadline)
        let decision = scheduler.decide(world: Worlds.metered, now: release)
        #expect(decision.startedIDs == [1] && decision.linkWakeups == 1 && decision.coalesced.isEmpty)
    }

    @Test func aJobTooBigForTheMeteredLinkWaits() {
        var policy = SchedulingPolicy.defaults
        policy.classes[2].maxMeteredJobBytes = 1_000_000
        var scheduler = JobScheduler(policy: policy)
        let now = at(0)
        scheduler.enqueue(job(1, "utility", bytes: 50_000_000, deferrable: false), now: now)
        scheduler.enqueue(job(2, "utility", bytes: 10_000, deferrable: false), now: now)
        #expect(scheduler.decide(world: Worlds.metered, now: now).startedIDs == [2])
        let reason = scheduler.waitingReasons(for: JobID(1), world: Worlds.metered, now: now)
        #expect(reason.map(\.code) == [.metered])
        #expect(reason[0].description.contains("expected 50000000 bytes, max_metered_job_bytes 1000000"))
    }

    /// Both byte counts come from the client; their sum must not trap (it once took the daemon
    /// down on every start, as the job was already stored).
    @Test func expectedBytesThatOverflowTogetherCountAsTooBig() {
        var policy = SchedulingPolicy.defaults
        policy.classes[2].maxMeteredJobBytes = 1_000_000
        var scheduler = JobScheduler(policy: policy)
        let now = at(0)
        var huge = job(1, "utility", bytes: .max, deferrable: false)
        huge.expectedBytesUp = 1
        #expect(huge.expectedBytes == .max)
        scheduler.enqueue(huge, now: now)
        #expect(scheduler.decide(world: Worlds.metered, now: now).start.isEmpty)
        let reason = scheduler.waitingReasons(for: JobID(1), world: Worlds.metered, now: now)
        #expect(reason.first?.description.contains("expected \(Int64.max) bytes") == true)
    }

    @Test func meteredBudgetsHoldUntilLocalMidnight() {
        var policy = SchedulingPolicy.defaults
        policy.classes[1].meteredBytesPerDay = 1000
        var scheduler = JobScheduler(policy: policy)
        let now = at(hours(15))
        scheduler.recordMeteredBytes(1500, owner: OwnerID(1000), className: "default", at: now)
        scheduler.enqueue(job(1), now: now)
        let decision = scheduler.decide(world: Worlds.metered, now: now)
        #expect(decision.start.isEmpty && decision.nextWakeup == at(hours(24)))
        #expect(scheduler.codes(1, Worlds.metered, now) == [.quota])
        #expect(
            scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1],
            "the budget is for metered links only"
        )
    }

    /// A job held by pressure next to a timer of its own (not_before, a backoff): pressure has no
    /// event, so the timer must still wake the scheduler, which then reads pressure afresh.
    /// (Once the stale reading held the job until something unrelated happened.)
    @Test func aJobHeldByPressureStillWakesAtItsTimer() {
        var scheduler = JobScheduler()
        let now = at(0)
        scheduler.enqueue(job(1, "background", notBefore: at(60)), now: now)
        let busy = Worlds.world(cpu: 42, memory: 20)
        let decision = scheduler.decide(world: busy, now: now)
        #expect(decision.start.isEmpty)
        #expect(decision.nextWakeup == at(60), "the not_before timer is armed although pressure also holds the job")
        // At the wake-up the job is ready, so pressure decides it: the daemon reads it first.
        scheduler.advance(to: at(60))
        let dependence = scheduler.pressureDependence(world: busy, now: at(60))
        #expect(dependence.consulted && dependence.holding)
        #expect(scheduler.decide(world: Worlds.world(cpu: 0, memory: 0), now: at(60)).startedIDs == [1])
    }

    /// `min_battery = 0` never holds a job, as configuration.md says, even on battery with the
    /// charge unknown; any other floor does hold it then.
    @Test func aZeroBatteryFloorNeverHolds() {
        var scheduler = JobScheduler()
        let now = at(0)
        scheduler.enqueue(job(1, constraints: JobConstraints(minBattery: 0)), now: now)
        scheduler.enqueue(job(2, constraints: JobConstraints(minBattery: 10)), now: now)
        let unknownCharge = Worlds.world(onBattery: true, battery: nil)
        #expect(scheduler.decide(world: unknownCharge, now: now).startedIDs == [1])
        #expect(scheduler.codes(2, unknownCharge, now) == [.batteryBelow])
    }

    @Test func pressureHoldsBackgroundWork() {
        var scheduler = JobScheduler()
        let now = at(0)
        scheduler.enqueue(job(1, "background"), now: now)
        let busy = Worlds.world(cpu: 42, memory: 20)
        #expect(scheduler.decide(world: busy, now: now).start.isEmpty)
        let reasons = scheduler.waitingReasons(for: JobID(1), world: busy, now: now)
        #expect(reasons.map(\.code) == [.cpuPressure, .memoryPressure])
        #expect(reasons[0].description == "cpu pressure 42% > max_cpu_pressure 25 (class background, built-in default)")
    }

    @Test func urgentJobsGoFirstInsideAClass() {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(1)
        var scheduler = JobScheduler(policy: policy)
        let now = at(0)
        scheduler.enqueue(job(1), now: now)
        scheduler.enqueue(job(2, deadline: now.addingTimeInterval(hours(5))), now: now)
        scheduler.enqueue(job(3, deadline: now.addingTimeInterval(600)), now: now)
        scheduler.enqueue(job(4, deadline: now.addingTimeInterval(300)), now: now)
        var order: [Int64] = []
        for step in 0..<4 {
            let t = now.addingTimeInterval(Double(step))
            let started = scheduler.decide(world: Worlds.pluggedIn, now: t).startedIDs
            order += started
            for id in started { scheduler.jobFinished(JobID(id), at: t) }
        }
        #expect(order == [4, 3, 1, 2])
    }

    @Test func simulateChangesNothingAndSaysWhy() {
        var scheduler = JobScheduler(policy: Self.policy)
        let now = at(hours(12))
        scheduler.enqueue(job(1, "interactive"), now: now)
        scheduler.enqueue(job(2, "background"), now: now)
        scheduler.enqueue(job(3, "utility", constraints: JobConstraints(network: .unmetered)), now: now)
        let whatIf = Worlds.world(onBattery: true, battery: 15, metered: true)
        let simulation = scheduler.simulate(world: whatIf, now: now)
        #expect(simulation.decision.startedIDs == [1])
        #expect(simulation.waitingCount == 2)
        #expect(simulation.waiting.map(\.id) == [JobID(2), JobID(3)])
        #expect(simulation.waiting[0].reasons.map(\.code) == [.batteryBelow, .metered])
        #expect(simulation.waiting[1].reasons.map(\.code) == [.metered])
        #expect(scheduler.queuedCount == 3 && scheduler.runningCount == 0)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).start.count == 3)
    }

    /// A uid's simulation explains its own waiting jobs, up to the limit, however many other
    /// owners' jobs have lower ids (once it took the lowest ids first and filtered after).
    @Test func simulateForOneOwnerLimitsItsOwnJobs() {
        var scheduler = JobScheduler(policy: Self.policy)
        let now = at(hours(12))
        for id in 1...5 { scheduler.enqueue(job(Int64(id), "background", owner: 1000), now: now) }
        for id in 6...8 { scheduler.enqueue(job(Int64(id), "background", owner: 2000), now: now) }
        let whatIf = Worlds.world(onBattery: true, battery: 15, metered: true)
        let mine = scheduler.simulate(world: whatIf, now: now, explainLimit: 2, owner: OwnerID(2000))
        #expect(mine.waiting.map(\.id) == [JobID(6), JobID(7)])
        #expect(mine.waitingCount == 3)
        let everyone = scheduler.simulate(world: whatIf, now: now, explainLimit: 2)
        #expect(everyone.waiting.map(\.id) == [JobID(1), JobID(2)] && everyone.waitingCount == 8)
    }

    @Test func policyReloadKeepsQueueRunningAndPauses() {
        var scheduler = JobScheduler()
        let now = at(0)
        scheduler.enqueue(job(1, "background"), now: now)
        scheduler.enqueue(job(2, "background"), now: now)
        scheduler.enqueue(job(3, "background"), now: now)
        scheduler.pause(JobID(3))
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [1, 2])
        var stricter = SchedulingPolicy.defaults
        stricter.classes[3].maxConcurrent = 1
        scheduler.updatePolicy(stricter, now: now)
        #expect(scheduler.runningCount == 2 && scheduler.isPaused(JobID(3)))
        scheduler.resume(JobID(3), now: now)
        scheduler.jobFinished(JobID(1), at: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).start.isEmpty, "2 is still running, class max is 1")
        scheduler.jobFinished(JobID(2), at: now)
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: now).startedIDs == [3])
    }

    @Test func unknownClassesAreScheduledAsDefault() {
        var scheduler = JobScheduler()
        scheduler.enqueue(job(1, "gone-after-reload"), now: at(0))
        #expect(scheduler.queuedJob(JobID(1))?.className == "default")
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: at(0)).startedIDs == [1])
    }
}
