import Foundation
import LullCore
import Testing

/// The dispatcher's decisions, replayed without the actor, a store or a real clock: each input
/// goes in at a time the test chooses, and the actions that come out are the whole effect.
@Suite struct DispatchStateMachineTests {
    let readings = ScriptedReadings()

    func machine(maxConcurrent: Int = 4, world: WorldSnapshot = Worlds.pluggedIn) -> DispatchStateMachine {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(maxConcurrent)
        return DispatchStateMachine(policy: policy, world: world, localTime: .utc, knownUntil: at(hours(24)))
    }

    @Test func aSubmissionStartsWhatIsReadyAndArmsOneTimerForTheRest() {
        var clock = VirtualClock()
        var machine = machine()
        let ready = job(1)
        let later = job(2, notBefore: at(60))
        #expect(
            machine.submitted([ready, later], at: clock.instant, readings: readings) == [
                .statusChanged, .holdOnPressure(false), .start(ready), .armTimer(at: at(60)),
            ]
        )
        #expect(machine.timerDue == at(60))

        // Nothing new before the timer: a decision that changes nothing arms nothing.
        clock.advance(30)
        #expect(machine.attemptFinished(JobID(1), at: clock.instant, readings: readings).startedIDs == [])
        #expect(machine.timerDue == at(60))

        clock.advance(30)
        let fired = machine.timerFired(at: clock.instant, readings: readings)
        #expect(fired.startedIDs == [2])
        #expect(!fired.contains(.disarmTimer), "the timer that fired is gone already")
        #expect(machine.timerDue == nil)
    }

    @Test func aLaterWakeUpReplacesTheTimerAndNoneLeftDisarmsIt() {
        let clock = VirtualClock()
        var machine = machine(world: Worlds.offline)
        _ = machine.submitted([job(1, deadline: at(100), onDeadline: .expire)], at: clock.instant, readings: readings)
        #expect(machine.timerDue == at(100))
        // Online again: the job starts, nothing is left to wake for.
        let actions = machine.worldChanged(Worlds.pluggedIn, at: clock.instant, readings: readings)
        #expect(actions.startedIDs == [1])
        #expect(actions.last == .disarmTimer)
        #expect(machine.timerDue == nil)
    }

    @Test func aDeadlineExpiresAJobThatCouldNotStart() {
        var clock = VirtualClock()
        var machine = machine(world: Worlds.offline)
        _ = machine.submitted([job(7, deadline: at(10), onDeadline: .expire)], at: clock.instant, readings: readings)
        _ = machine.reserve(1, for: OwnerID(1000), limit: 10)
        clock.advance(10)
        let actions = machine.timerFired(at: clock.instant, readings: readings)
        #expect(actions.contains(.expire(JobID(7))))
        #expect(machine.queuedCount == 0)
    }

    @Test func anUnchangedWorldDecidesNothing() {
        let clock = VirtualClock()
        var machine = machine()
        #expect(machine.worldChanged(Worlds.pluggedIn, at: clock.instant, readings: readings) == [])
        #expect(machine.worldChanged(Worlds.battery(80), at: clock.instant, readings: readings) != [])
    }

    @Test func nothingStartsWhileRestoringSleepingOrStopping() {
        let clock = VirtualClock()
        var machine = machine()
        machine.restoreBegan()
        machine.restoredJob(job(1), now: clock.now)
        #expect(machine.mode == .restoring)
        #expect(
            machine.worldChanged(Worlds.battery(90), at: clock.instant, readings: readings) == [.statusChanged],
            "a sensor change while the queue loads starts nothing"
        )
        let restored = machine.restored(unfinished: [OwnerID(1000): 1], at: clock.instant, readings: readings)
        #expect(restored.startedIDs == [1])
        #expect(machine.mode == .accepting)

        let asleep = machine.sleep()
        let again = machine.sleep()
        #expect(asleep)
        #expect(!again, "asleep already")
        #expect(machine.submitted([job(2)], at: clock.instant, readings: readings) == [.statusChanged])
        #expect(machine.woke(at: clock.instant, readings: readings).startedIDs == [2])
        #expect(machine.woke(at: clock.instant, readings: readings) == [], "awake already")

        machine.stop()
        #expect(machine.submitted([job(3)], at: clock.instant, readings: readings) == [.statusChanged])
        #expect(machine.mode == .stopping)
        machine.restoreEnded()
        #expect(machine.mode == .stopping, "a stop during the restore keeps its mode")
    }

    @Test func aFinishedAttemptFreesItsSlot() {
        var clock = VirtualClock()
        var machine = machine(maxConcurrent: 1)
        #expect(machine.submitted([job(1), job(2)], at: clock.instant, readings: readings).startedIDs == [1])
        clock.advance(5)
        #expect(machine.attemptFinished(JobID(1), at: clock.instant, readings: readings).startedIDs == [2])
    }

    @Test func pressureIsReadOnlyWhenAStartHangsOnItAndTheReadingIsStale() {
        var clock = VirtualClock()
        var machine = machine()
        readings.nextPressure = PressureState(cpu: 90, memory: 0, source: "test")
        _ = machine.submitted([job(1)], at: clock.instant, readings: readings)
        #expect(readings.pressureReads == 0, "a default-class job does not depend on pressure")

        let held = machine.submitted([job(2, "utility")], at: clock.instant, readings: readings)
        #expect(readings.pressureReads == 1)
        #expect(held.contains(.holdOnPressure(true)))
        #expect(held.startedIDs == [])

        // Power changes; the pressure the decision read stays in the world.
        var world = machine.world
        clock.advance(1)
        world.power = PowerState(onBattery: true, batteryPercent: 90, source: "test")
        let fresh = machine.worldChanged(world, at: clock.instant, readings: readings)
        #expect(readings.pressureReads == 1, "a reading a second old is fresh")
        #expect(fresh.startedIDs == [])

        clock.advance(DispatchStateMachine.pressureMaxAge)
        readings.nextPressure = PressureState(cpu: 5, memory: 0, source: "test")
        world.power.batteryPercent = 85
        let calm = machine.worldChanged(world, at: clock.instant, readings: readings)
        #expect(readings.pressureReads == 2)
        #expect(calm.startedIDs == [2])
        #expect(calm.contains(.holdOnPressure(false)))
    }

    /// A reading's age is counted on the time line: after the wall clock steps back an hour, a
    /// reading older than `pressureMaxAge` is read again, not kept for the hour.
    @Test func aWallClockStepBackDoesNotKeepAPressureReadingFresh() {
        var clock = VirtualClock()
        var machine = machine()
        readings.nextPressure = PressureState(cpu: 90, memory: 0, source: "test")
        _ = machine.submitted([job(1, "utility")], at: clock.instant, readings: readings)
        #expect(readings.pressureReads == 1)

        clock.advance(DispatchStateMachine.pressureMaxAge + 1)
        readings.nextPressure = PressureState(cpu: 5, memory: 0, source: "test")
        var world = machine.world
        world.power.batteryPercent = 85
        let stepped = DispatchInstant(now: clock.now, wall: clock.now.addingTimeInterval(-3600))
        let calm = machine.worldChanged(world, at: stepped, readings: readings)
        #expect(readings.pressureReads == 2)
        #expect(calm.startedIDs == [1])
    }

    @Test func aSamplersReadingCountsAsFreshEvenWhenItChangesNothing() {
        let clock = VirtualClock()
        var machine = machine()
        let calm = PressureState(cpu: 5, memory: 0, source: "test")
        _ = machine.pressureRead(calm, at: clock.instant, readings: readings)
        #expect(machine.pressureRead(calm, at: clock.instant, readings: readings) == [])
        #expect(machine.submitted([job(1, "utility")], at: clock.instant, readings: readings).startedIDs == [1])
        #expect(readings.pressureReads == 0)
    }

    @Test func localTimeIsReadAgainOnlyPastWhatItKnows() {
        var clock = VirtualClock()
        var machine = DispatchStateMachine(
            policy: .defaults,
            world: Worlds.pluggedIn,
            localTime: .utc,
            knownUntil: at(100)
        )
        _ = machine.submitted([job(1)], at: clock.instant, readings: readings)
        #expect(readings.localTimeReads.isEmpty)
        clock.advance(100)
        _ = machine.timerFired(at: clock.instant, readings: readings)
        _ = machine.timerFired(at: clock.instant, readings: readings)
        #expect(readings.localTimeReads == [at(100)], "read once, then known for another hour")
        _ = machine.policyChanged(.defaults, at: clock.instant, readings: readings)
        #expect(readings.localTimeReads == [at(100), at(100)], "a reload reads the time zone again")
    }

    @Test func ownersAreHeldToTheirQuotaAndRootIsNot() {
        let clock = VirtualClock()
        var machine = machine()
        let owner = OwnerID(1000)
        guard case .success = machine.reserve(2, for: owner, limit: 3) else {
            Issue.record("two of three fit")
            return
        }
        guard case .failure(let exceeded) = machine.reserve(2, for: owner, limit: 3) else {
            Issue.record("four of three do not fit")
            return
        }
        #expect(exceeded == OwnerQuotaExceeded(owner: owner, unfinished: 2, asked: 2, limit: 3))
        guard case .success = machine.reserve(50, for: OwnerID(0), limit: 3) else {
            Issue.record("root is not limited")
            return
        }

        // A job a command ended no longer counts; a paused one still does.
        machine.commandRecorded(storedJob(1, state: .cancelled))
        machine.commandRecorded(storedJob(2, state: .paused))
        // A periodic job's next occurrence counts from when it is stored.
        machine.successorCreated(job(3), now: clock.now)
        guard case .success = machine.reserve(1, for: owner, limit: 3) else {
            Issue.record("one left after the cancel and the successor")
            return
        }
        guard case .failure = machine.reserve(1, for: owner, limit: 3) else {
            Issue.record("the quota is full again")
            return
        }
        machine.release(1, for: owner)
        guard case .success = machine.reserve(1, for: owner, limit: 3) else {
            Issue.record("a release gives room back")
            return
        }
    }

    @Test func aCommandTakesAJobOutOfTheQueueAndAResumeBringsItBack() {
        let clock = VirtualClock()
        var machine = machine(world: Worlds.offline)
        _ = machine.submitted([job(1)], at: clock.instant, readings: readings)
        machine.commandRecorded(storedJob(1, state: .paused))
        #expect(machine.queuedCount == 0)
        _ = machine.commandTookEffect(requeueing: job(1), at: clock.instant, readings: readings)
        #expect(machine.queuedCount == 1)
        #expect(machine.waitingReasons(for: JobID(1), now: clock.now).map(\.code) == [.offline])
    }
}
