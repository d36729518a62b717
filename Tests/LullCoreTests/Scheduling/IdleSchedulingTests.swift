import Foundation
import LullCore
import Testing

/// `requires_idle` on the virtual clock: logind's reading is part of the world, the
/// `idle_after` comparison and its wake-up are the scheduler's.
@Suite struct IdleSchedulingTests {
    static let active = IdleState(.active, source: "logind IdleHint false")
    static let unknown = IdleState(.unknown, source: "logind not found")
    static func idle(since: Date) -> IdleState { IdleState(.idle(since: since), source: "logind IdleHint true") }

    static func world(_ idle: IdleState, onBattery: Bool = false) -> WorldSnapshot {
        var world = onBattery ? Worlds.battery(80) : Worlds.pluggedIn
        world.idle = idle
        return world
    }

    static let requiresIdle = JobConstraints(requiresIdle: true)

    @Test func heldWhileTheUserIsActiveWithNoTimer() {
        var scheduler = JobScheduler(maxConcurrent: 4)
        scheduler.enqueue(job(1, constraints: Self.requiresIdle), now: at(0))
        scheduler.enqueue(job(2), now: at(0))
        let world = Self.world(Self.active)
        let decision = scheduler.decide(world: world, now: at(0))
        #expect(decision.startedIDs == [2], "only the job that requires idle waits")
        #expect(decision.nextWakeup == nil, "logind's next signal is the event, not a timer")
        let reasons = scheduler.waitingReasons(for: JobID(1), world: world, now: at(0))
        #expect(reasons.map(\.code) == [.notIdle])
        #expect(
            reasons[0].description == "user active (logind IdleHint false), job's requires_idle (job constraint)"
        )
        #expect(reasons[0].fromJob && reasons[0].setting == "requires_idle")
        #expect(scheduler.heldByCondition(world: world, now: at(0)) == [.notIdle: 1])
    }

    @Test func startsExactlyWhenIdleForIdleAfter() {
        var scheduler = JobScheduler(maxConcurrent: 4) {
            $0.idleAfter = ConfiguredLimit(
                300,
                origin: ConfigOrigin(file: "/etc/lull/lull.toml", line: 3, key: "sensors.idle_after")
            )
        }
        scheduler.enqueue(job(1, constraints: Self.requiresIdle), now: at(0))
        #expect(scheduler.decide(world: Self.world(Self.active), now: at(0)).start.isEmpty)

        // The user left at 100 s; logind says so at 130 s (its own idle delay).
        let world = Self.world(Self.idle(since: at(100)))
        let first = scheduler.decide(world: world, now: at(130))
        #expect(first.start.isEmpty)
        #expect(first.nextWakeup == at(400), "a timer for the moment idle_after is reached")
        let reason = scheduler.waitingReasons(for: JobID(1), world: world, now: at(130))
        #expect(reason.map(\.code) == [.notIdle])
        #expect(reason[0].until == at(400))
        #expect(
            reason[0].description.hasPrefix(
                "idle for 30 s < idle_after 300 s (/etc/lull/lull.toml:3), job's requires_idle (job constraint)"
            )
        )

        #expect(scheduler.decide(world: world, now: at(399.5)).start.isEmpty)
        let due = scheduler.decide(world: world, now: at(400))
        #expect(due.startedIDs == [1], "starts at idle_after with no other event")
    }

    @Test func unknownIdlenessIsUnmetAndSaysWhy() {
        var scheduler = JobScheduler(maxConcurrent: 4)
        scheduler.enqueue(job(1, constraints: Self.requiresIdle), now: at(0))
        let world = Self.world(Self.unknown)
        let decision = scheduler.decide(world: world, now: at(hours(1)))
        #expect(decision.start.isEmpty && decision.nextWakeup == nil)
        let reason = scheduler.waitingReasons(for: JobID(1), world: world, now: at(hours(1)))
        #expect(reason.map(\.code) == [.notIdle])
        #expect(reason[0].description.hasPrefix("idle unknown: logind not found"))
        // What a daemon assumes before any sensor: unknown too.
        #expect(WorldSnapshot.assumed.idle.state == .unknown)
    }

    @Test func aMachineWithoutSessionsIsIdle() {
        var scheduler = JobScheduler(maxConcurrent: 4)
        scheduler.enqueue(job(1, constraints: Self.requiresIdle), now: at(0))
        #expect(scheduler.decide(world: Self.world(Self.idle(since: .distantPast)), now: at(0)).startedIDs == [1])
    }

    @Test func theClassRequiresIdleAndAJobCannotLoosenIt() {
        var policy = SchedulingPolicy.defaults
        var nightly = JobClassPolicy(name: "nightly", maxConcurrent: 2, weight: 1)
        nightly.requiresIdle = true
        nightly.origins[.requiresIdle] = ConfigOrigin(
            file: "/etc/lull/lull.toml",
            line: 9,
            key: "classes.nightly.requires_idle"
        )
        policy.classes.append(nightly)
        var scheduler = JobScheduler(policy: policy)
        // The job says nothing (false): the class still holds it.
        scheduler.enqueue(job(1, "nightly", constraints: JobConstraints(requiresIdle: false)), now: at(0))
        let world = Self.world(Self.active)
        #expect(scheduler.decide(world: world, now: at(0)).start.isEmpty)
        let reason = scheduler.waitingReasons(for: JobID(1), world: world, now: at(0))
        #expect(
            reason.map(\.description) == [
                "user active (logind IdleHint false), requires_idle = true (class nightly, /etc/lull/lull.toml:9)"
            ]
        )
        #expect(scheduler.decide(world: Self.world(Self.idle(since: at(-600))), now: at(1)).startedIDs == [1])
    }

    @Test func aDeadlineWithRunOverridesIdleAsItDoesPower() {
        var scheduler = JobScheduler(maxConcurrent: 4)
        scheduler.enqueue(job(1, constraints: Self.requiresIdle, deadline: at(60), onDeadline: .run), now: at(0))
        let world = Self.world(Self.active)
        let first = scheduler.decide(world: world, now: at(0))
        #expect(first.start.isEmpty && first.nextWakeup == at(60))
        #expect(scheduler.decide(world: world, now: at(60)).startedIDs == [1])
        #expect(WaitingReason.Code.notIdle.isDiscretionary)
    }

    @Test func idleBesideAnotherConditionWaitsForThatConditionsEvent() {
        var scheduler = JobScheduler(maxConcurrent: 4)
        scheduler.enqueue(job(1, "background", constraints: Self.requiresIdle), now: at(0))
        let world = Self.world(Self.idle(since: at(0)), onBattery: true)
        var onBattery = world
        onBattery.power = PowerState(onBattery: true, batteryPercent: 10, source: "UPower DisplayDevice")
        let decision = scheduler.decide(world: onBattery, now: at(10))
        #expect(decision.start.isEmpty)
        #expect(decision.nextWakeup == nil, "the battery's event comes first")
        #expect(scheduler.codes(1, onBattery, at(10)) == [.batteryBelow, .notIdle])
    }

    @Test func aRunningJobThatRequiresIdleIsStoppedWhenTheUserReturns() {
        var scheduler = JobScheduler(maxConcurrent: 4)
        // background stops jobs whose conditions lapse; default and interactive let them finish.
        scheduler.enqueue(job(1, "background", constraints: Self.requiresIdle), now: at(0))
        scheduler.enqueue(job(2, "default", constraints: Self.requiresIdle), now: at(0))
        let idle = Self.world(Self.idle(since: at(-600)))
        #expect(scheduler.decide(world: idle, now: at(0)).startedIDs.sorted() == [1, 2])
        #expect(scheduler.lapsedRunningJobs(world: idle, now: at(5), secondsLeft: { _ in nil }).isEmpty)

        let back = Self.world(Self.active)
        let stops = scheduler.lapsedRunningJobs(world: back, now: at(10), secondsLeft: { _ in nil })
        #expect(stops.map(\.id) == [JobID(1)] && stops.map(\.reason) == [.notIdle])
    }
}
