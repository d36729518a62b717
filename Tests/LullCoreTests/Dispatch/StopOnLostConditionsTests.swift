import Foundation
import LullCore
import Testing

/// Conditions that must keep holding while a job runs, on the virtual clock: which running jobs
/// the state machine stops, which it lets finish, and how a stopped job waits out its hold-down.
@Suite struct StopOnLostConditionsTests {
    let readings = ScriptedReadings()

    func machine(
        world: WorldSnapshot = Worlds.pluggedIn,
        _ configure: (inout SchedulingPolicy) -> Void = { _ in }
    )
        -> DispatchStateMachine
    {
        var policy = SchedulingPolicy.defaults
        configure(&policy)
        return DispatchStateMachine(policy: policy, world: world, localTime: .utc, knownUntil: at(hours(48)))
    }

    let needsAC = JobConstraints(requiresAC: true)

    @Test func aRunningJobIsStoppedWhenPowerGoesAndRequeuedNotFailed() {
        var machine = machine()
        let running = job(1, "utility", constraints: needsAC)
        #expect(machine.submitted([running], at: VirtualClock().instant, readings: readings).startedIDs == [1])

        let actions = machine.worldChanged(Worlds.battery(80), at: VirtualClock().instant, readings: readings)
        #expect(actions.contains(.stop(JobID(1), reason: .onBattery)))
        // Decided once: another change while it winds down does not stop it again.
        let again = machine.worldChanged(Worlds.battery(70), at: VirtualClock().instant, readings: readings)
        #expect(!again.contains { if case .stop = $0 { true } else { false } })

        let stored = storedJob(1, jobClass: "utility")
        let conclusion = machine.attemptEnded(stored, .interrupted, wall: epoch) { 0.5 }
        #expect(conclusion == .requeue(.conditionsLost(.onBattery)))
    }

    @Test func classesThatFinishAndJobsPastADeadlineThatRunAreNotStopped() {
        var machine = machine()
        let interactive = job(1, "interactive", constraints: needsAC)
        let overdue = job(2, "utility", constraints: needsAC, deadline: at(-1), onDeadline: .run)
        _ = machine.submitted([interactive, overdue], at: VirtualClock().instant, readings: readings)

        let actions = machine.worldChanged(Worlds.battery(80), at: VirtualClock().instant, readings: readings)
        #expect(!actions.contains { if case .stop = $0 { true } else { false } })
        // A deadline overrides discretionary conditions only: offline stops the overdue job.
        let offline = machine.worldChanged(Worlds.offline, at: VirtualClock().instant, readings: readings)
        #expect(offline.contains(.stop(JobID(2), reason: .offline)))
        #expect(!offline.contains { if case .stop(JobID(1), _) = $0 { true } else { false } })
    }

    @Test func aJobAboutToFinishIsLeftToFinish() {
        var machine = machine()
        _ = machine.submitted(
            [job(1, "utility", constraints: needsAC), job(2, "utility", constraints: needsAC)],
            at: VirtualClock().instant,
            readings: readings
        )
        _ = machine.runningProgressed(JobID(1), secondsLeft: 1, at: VirtualClock().instant)
        _ = machine.runningProgressed(JobID(2), secondsLeft: 60, at: VirtualClock().instant)
        let actions = machine.worldChanged(Worlds.battery(80), at: VirtualClock().instant, readings: readings)
        #expect(actions.contains(.stop(JobID(2), reason: .onBattery)))
        #expect(!actions.contains(.stop(JobID(1), reason: .onBattery)), "1 s left, finish_within 10")
    }

    /// A job left to finish is not let off for good: a transfer that slows down is stopped at
    /// the progress report that shows it will not finish within `finish_within`. Nothing
    /// checked again before, unless the world changed once more.
    @Test func aJobLeftToFinishIsStoppedOnceItNoLongerLooksLikeFinishing() {
        var machine = machine()
        let clock = VirtualClock()
        _ = machine.submitted([job(1, "utility", constraints: needsAC)], at: clock.instant, readings: readings)
        _ = machine.runningProgressed(JobID(1), secondsLeft: 5, at: clock.instant)
        let lapsed = machine.worldChanged(Worlds.battery(80), at: clock.instant, readings: readings)
        #expect(!lapsed.contains { if case .stop = $0 { true } else { false } })
        #expect(machine.runningProgressed(JobID(1), secondsLeft: 4, at: clock.instant).isEmpty)
        #expect(
            machine.runningProgressed(JobID(1), secondsLeft: 600, at: clock.instant) == [
                .stop(JobID(1), reason: .onBattery)
            ]
        )
    }

    @Test func pressureStopsRunningJobsOnlyWhereTheClassSaysSo() {
        var machine = machine {
            $0.classes[$0.classes.firstIndex { $0.name == "background" }!].stopOnPressure = true
        }
        _ = machine.submitted(
            [job(1, "utility"), job(2, "background")],
            at: VirtualClock().instant,
            readings: readings
        )
        let actions = machine.worldChanged(
            Worlds.world(cpu: 90),
            at: VirtualClock().instant,
            readings: readings
        )
        #expect(actions.contains(.stop(JobID(2), reason: .cpuPressure)))
        #expect(!actions.contains(.stop(JobID(1), reason: .cpuPressure)))
    }

    /// Nothing queued depends on pressure, so only the running job of a `stop_on_pressure`
    /// class keeps the sampler on; its readings then stop the job when pressure rises.
    @Test func aRunningJobThatPressureStopsKeepsThePressureSampled() {
        var machine = machine {
            $0.classes[$0.classes.firstIndex { $0.name == "background" }!].stopOnPressure = true
        }
        let started = machine.submitted([job(1, "background")], at: VirtualClock().instant, readings: readings)
        #expect(started.startedIDs == [1])
        #expect(started.contains(.holdOnPressure(true)), "\(started)")
        let rose = machine.pressureRead(
            Worlds.world(cpu: 90).pressure,
            at: VirtualClock().instant,
            readings: readings
        )
        #expect(rose.contains(.stop(JobID(1), reason: .cpuPressure)), "\(rose)")

        // A class that lets its jobs run on under pressure needs no readings.
        var other = self.machine()
        let finishing = other.submitted([job(2, "background")], at: VirtualClock().instant, readings: readings)
        #expect(finishing.contains(.holdOnPressure(false)), "\(finishing)")
    }

    @Test func aClassWindowClosingStopsAMaintenanceJobAtTheMinute() {
        var clock = VirtualClock()
        clock.advance(hours(4) + 59 * 60)  // 04:59, inside maintenance's 01:00–05:00
        var machine = machine()
        let actions = machine.submitted([job(1, "maintenance")], at: clock.instant, readings: readings)
        #expect(actions.startedIDs == [1])
        #expect(machine.timerDue == at(hours(5)), "the window's closing is a wake-up while the job runs")
        clock.advance(60)
        #expect(
            machine.timerFired(at: clock.instant, readings: readings).contains(.stop(JobID(1), reason: .outsideWindow))
        )
    }

    @Test func aMeteredBudgetStopsAJobWhenItRunsOutMidTransfer() {
        let clock = VirtualClock()
        var machine = machine(world: Worlds.metered) {
            let utility = $0.classes.firstIndex { $0.name == "utility" }!
            $0.classes[utility].meteredBytesPerDay = 10 << 20
        }
        _ = machine.submitted([job(1, "utility")], at: clock.instant, readings: readings)
        machine.meteredBytesMoved(6 << 20, owner: OwnerID(1000), className: "utility", now: clock.now)
        #expect(machine.runningProgressed(JobID(1), secondsLeft: 100, at: clock.instant).isEmpty)
        machine.meteredBytesMoved(5 << 20, owner: OwnerID(1000), className: "utility", now: clock.now)
        #expect(
            machine.runningProgressed(JobID(1), secondsLeft: 90, at: clock.instant) == [.stop(JobID(1), reason: .quota)]
        )
    }

    /// A stop decided while the attempt was frozen (a paused command) is decided again when it
    /// is thawed: still on battery, it stops then; back on AC, it goes on.
    @Test func aStopDecidedWhileFrozenIsDecidedAgainAtTheThaw() {
        var machine = machine()
        _ = machine.submitted([job(1, "utility", constraints: needsAC)], at: VirtualClock().instant, readings: readings)
        let first = machine.worldChanged(Worlds.battery(80), at: VirtualClock().instant, readings: readings)
        #expect(first.contains(.stop(JobID(1), reason: .onBattery)))
        #expect(machine.thawed(JobID(1), at: VirtualClock().instant) == [.stop(JobID(1), reason: .onBattery)])

        _ = machine.worldChanged(Worlds.pluggedIn, at: VirtualClock().instant, readings: readings)
        #expect(machine.thawed(JobID(1), at: VirtualClock().instant).isEmpty)
    }

    @Test func theHoldDownDoublesFromTenSecondsToTenMinutes() {
        #expect((1...8).map { JobScheduler.holdDown(afterStops: $0) } == [10, 20, 40, 80, 160, 320, 600, 600])
    }

    /// A charger at its charge limit flips every 2 s for 2 minutes: the job is stopped once and
    /// waits; once power is steady it starts when AC has held for its hold-down.
    @Test func aFlappingChargerCannotStartAndStopAJobInALoop() {
        var clock = VirtualClock()
        var machine = machine()
        var starts = 0
        var stops = 0
        func count(_ actions: [DispatchAction]) {
            starts += actions.startedIDs.count
            stops += actions.filter { if case .stop = $0 { true } else { false } }.count
        }
        count(machine.submitted([job(1, "utility", constraints: needsAC)], at: clock.instant, readings: readings))
        var onBattery = false
        var nextFlip = 1.0
        // Every input the daemon would feed: the flips, the timer when it is due, and the end of
        // a stopped attempt, whose job comes back held.
        while clock.now < at(120) {
            if let due = machine.timerDue, due <= at(nextFlip) {
                clock.now = max(clock.now, due)
                count(machine.timerFired(at: clock.instant, readings: readings))
                continue
            }
            clock.now = at(nextFlip)
            nextFlip += 2
            onBattery.toggle()
            let actions = machine.worldChanged(
                onBattery ? Worlds.battery(80) : Worlds.pluggedIn,
                at: clock.instant,
                readings: readings
            )
            count(actions)
            for case .stop(let id, let reason) in actions {
                _ = machine.attemptEnded(storedJob(id.rawValue, jobClass: "utility"), .interrupted, wall: clock.now) {
                    0.5
                }
                var requeued = job(id.rawValue, "utility", constraints: needsAC)
                requeued.holdDown = JobScheduler.holdDown(afterStops: stops)
                #expect(reason == .onBattery)
                machine.stopRecorded(requeued, now: clock.now)
                count(machine.attemptFinished(id, at: clock.instant, readings: readings))
            }
        }
        #expect(stops <= 5 && starts <= 6, "\(stops) stops, \(starts) starts while flapping")
        #expect(stops == 1)
        let reasons = machine.waitingReasons(for: JobID(1), now: clock.now).map(\.code)
        #expect(reasons.contains(.holdDown) || reasons.contains(.onBattery))

        // Steady power: the job starts once AC has held for the hold-down, not before.
        if onBattery { count(machine.worldChanged(Worlds.pluggedIn, at: clock.instant, readings: readings)) }
        let steadySince = clock.now
        #expect(machine.timerDue == steadySince.addingTimeInterval(10))
        #expect(starts == 1)
        clock.now = steadySince.addingTimeInterval(10)
        count(machine.timerFired(at: clock.instant, readings: readings))
        #expect(starts == 2)
    }

    /// A job stopped on lost conditions waits out its hold-down in the queue; an `expire`
    /// deadline still ends it there. It stayed queued, waiting for power, for as long as the
    /// machine stayed on battery.
    @Test func aStoppedJobPastAnExpireDeadlineExpiresWhileHeld() {
        var scheduler = JobScheduler(policy: .defaults)
        var stopped = job(1, "utility", constraints: needsAC, deadline: at(100), onDeadline: .expire)
        scheduler.enqueue(stopped, now: at(0))
        #expect(scheduler.decide(world: Worlds.pluggedIn, now: at(0)).start.map(\.id) == [JobID(1)])
        let stops = scheduler.lapsedRunningJobs(world: Worlds.battery(80), now: at(10)) { _ in nil }
        #expect(stops.map(\.id) == [JobID(1)])
        stopped.holdDown = JobScheduler.holdDown(afterStops: 1)
        scheduler.enqueue(stopped, now: at(10))

        let before = scheduler.decide(world: Worlds.battery(80), now: at(50))
        #expect(before.expired.isEmpty)
        #expect(before.nextWakeup == at(100))
        #expect(scheduler.decide(world: Worlds.battery(80), now: at(100)).expired == [JobID(1)])
        #expect(!scheduler.isQueued(JobID(1)))
    }
}
