import Foundation
import LullCore
import Synchronization
import Testing

/// A wall clock and a monotonic clock that tests move by hand; the wall clock can jump.
final class JumpingClocks: Sendable {
    private let state = Mutex<(wall: Date, elapsed: Duration)>((Date(timeIntervalSince1970: 1_800_000_000), .zero))

    var wall: any LullClock { Wall(clocks: self) }
    var monotonic: any MonotonicClock { Monotonic(clocks: self) }

    /// Real time passes: both clocks move.
    func advance(_ seconds: Double) {
        state.withLock {
            $0.wall = $0.wall.addingTimeInterval(seconds)
            $0.elapsed += .milliseconds(Int64(seconds * 1000))
        }
    }

    /// Someone sets the clock: only the wall clock moves.
    func jumpWall(_ seconds: Double) { state.withLock { $0.wall = $0.wall.addingTimeInterval(seconds) } }

    var wallNow: Date { state.withLock { $0.wall } }

    private struct Wall: LullClock {
        let clocks: JumpingClocks
        func now() -> Date { clocks.state.withLock { $0.wall } }
    }

    private struct Monotonic: MonotonicClock {
        let clocks: JumpingClocks
        func elapsed() -> Duration { clocks.state.withLock { $0.elapsed } }
    }
}

/// Wall-clock jumps against the scheduler's time line: a `not_before` ten minutes out starts
/// after ten minutes of real time whichever way the wall clock is set in between.
@Suite struct ClockJumpTests {
    func job(_ id: Int64, notBefore: Date? = nil, deadline: Date? = nil) -> QueuedJob {
        QueuedJob(id: JobID(id), owner: OwnerID(1000), host: "h", notBefore: notBefore, deadline: deadline)
    }

    /// Runs the scheduler the way the dispatcher does: enqueue placed on the time line, decide
    /// at the time line's now, wake at `nextWakeup`.
    struct Harness {
        var scheduler = JobScheduler()
        let timeline: SchedulingTimeline
        var started: [JobID] = []

        mutating func enqueue(_ job: QueuedJob) { scheduler.enqueue(timeline.place(job), now: timeline.now()) }

        mutating func decide() -> SchedulingDecision {
            let decision = scheduler.decide(world: .assumed, now: timeline.now())
            started += decision.start.map(\.id)
            return decision
        }

        /// Seconds until the scheduler's next wake-up, measured on the time line.
        func wait(_ decision: SchedulingDecision) -> Double? {
            decision.nextWakeup.map { $0.timeIntervalSince(timeline.now()) }
        }
    }

    @Test(arguments: [3600.0, -3600.0, 86_400.0 * 365, -86_400.0 * 30])
    func aWallClockJumpNeitherReleasesNorDelaysNotBefore(jump: Double) {
        let clocks = JumpingClocks()
        var harness = Harness(timeline: SchedulingTimeline(wall: clocks.wall, monotonic: clocks.monotonic))
        let due = [600.0, 1800.0, 7200.0]
        for (index, seconds) in due.enumerated() {
            harness.enqueue(job(Int64(index + 1), notBefore: clocks.wallNow.addingTimeInterval(seconds)))
        }
        #expect(harness.decide().start.isEmpty)
        clocks.advance(60)
        clocks.jumpWall(jump)
        // An event right after the jump (a submission, a battery change) decides again.
        let afterJump = harness.decide()
        #expect(afterJump.start.isEmpty, "a jump of \(jump) s released jobs at once")
        #expect(abs((harness.wait(afterJump) ?? -1) - 540) < 0.01, "the next wake-up moved with the jump")
        var elapsed = 60.0
        for (index, seconds) in due.enumerated() {
            // Just before its time the job waits; at its time it starts: measured in real time.
            clocks.advance(seconds - 1 - elapsed)
            elapsed = seconds
            #expect(!harness.decide().start.contains { $0.id == JobID(Int64(index + 1)) })
            clocks.advance(1)
            #expect(
                harness.decide().start.map(\.id) == [JobID(Int64(index + 1))],
                "job \(index + 1) after a jump of \(jump) s"
            )
        }
    }

    @Test func aJobSubmittedAfterAJumpIsScheduledAgainstTheNewWallClock() {
        let clocks = JumpingClocks()
        var harness = Harness(timeline: SchedulingTimeline(wall: clocks.wall, monotonic: clocks.monotonic))
        clocks.jumpWall(-7200)
        // The client read the (new) wall clock and asked for ten minutes from now.
        harness.enqueue(job(1, notBefore: clocks.wallNow.addingTimeInterval(600)))
        let decision = harness.decide()
        #expect(decision.start.isEmpty)
        #expect(abs((harness.wait(decision) ?? -1) - 600) < 0.01)
        clocks.advance(600)
        #expect(harness.decide().start.map(\.id) == [JobID(1)])
    }

    @Test func deadlinesFollowTheTimeLineToo() {
        let clocks = JumpingClocks()
        var harness = Harness(timeline: SchedulingTimeline(wall: clocks.wall, monotonic: clocks.monotonic))
        var expiring = job(
            1,
            notBefore: clocks.wallNow.addingTimeInterval(600),
            deadline: clocks.wallNow.addingTimeInterval(900)
        )
        expiring.onDeadline = .expire
        harness.enqueue(expiring)
        clocks.jumpWall(3600)
        #expect(harness.decide().expired.isEmpty, "a forward jump must not expire a job before its time")
        clocks.advance(600)
        #expect(harness.decide().start.map(\.id) == [JobID(1)])
    }

    @Test func withoutAJumpTheTimeLineIsTheWallClock() {
        let clocks = JumpingClocks()
        let timeline = SchedulingTimeline(wall: clocks.wall, monotonic: clocks.monotonic)
        clocks.advance(123.5)
        #expect(timeline.now() == clocks.wallNow)
        #expect(timeline.wallOffset == 0)
        let placed = timeline.place(job(1, notBefore: clocks.wallNow))
        #expect(placed.notBefore == clocks.wallNow)
        clocks.jumpWall(-30)
        #expect(timeline.wallOffset == -30)
        #expect(timeline.wallTime(of: timeline.now()) == clocks.wallNow)
    }
}
