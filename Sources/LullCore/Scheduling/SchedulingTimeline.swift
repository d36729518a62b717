import Foundation

/// Time that only moves forward at the rate of real time and that nobody can set: the kernel's
/// boot-time clock behind `ContinuousClock`. Tests substitute one they advance by hand.
public protocol MonotonicClock: Sendable {
    /// Time elapsed since an arbitrary fixed origin.
    func elapsed() -> Duration
}

public struct SystemMonotonicClock: MonotonicClock {
    private let origin = ContinuousClock.now
    public init() {}
    public func elapsed() -> Duration { ContinuousClock.now - origin }
}

/// The time line the scheduler runs on: it starts at the wall clock's reading and from then on
/// advances with the monotonic clock only. A wall-clock jump (an NTP step, `date -s`, a VM
/// resumed with a stale clock) therefore neither releases every `not_before` it jumps over at
/// once nor delays waiting jobs by the jump: a job asked to wait ten minutes waits ten minutes.
///
/// Times that come from outside as wall-clock dates (a submission's `not_before` and
/// `deadline`, a stored `retry_at`) are placed on the time line by their distance from the
/// wall clock's *current* reading, so a job submitted after a jump is scheduled against the
/// clock its client sees. Until the wall clock jumps, the time line and the wall clock agree
/// and placing changes nothing. After a restart the time line is anchored afresh.
public struct SchedulingTimeline: LullClock {
    private let wall: any LullClock
    private let monotonic: any MonotonicClock
    private let anchorWall: Date
    private let anchorElapsed: Duration

    public init(wall: any LullClock, monotonic: any MonotonicClock = SystemMonotonicClock()) {
        self.wall = wall
        self.monotonic = monotonic
        anchorWall = wall.now()
        anchorElapsed = monotonic.elapsed()
    }

    /// Now on the time line.
    public func now() -> Date {
        anchorWall.addingTimeInterval((monotonic.elapsed() - anchorElapsed).timeInterval)
    }

    /// How far the wall clock has jumped since the anchor: positive when it is now ahead.
    /// Sub-millisecond drift between the two clocks is not a jump.
    public var wallOffset: TimeInterval {
        let offset = wall.now().timeIntervalSince(now())
        return abs(offset) < 0.001 ? 0 : offset
    }

    /// A wall-clock date as a point on the time line.
    public func place(_ wallTime: Date) -> Date { wallTime.addingTimeInterval(-wallOffset) }

    /// A time-line point as the wall clock currently shows it (for answers to people).
    public func wallTime(of point: Date) -> Date { point.addingTimeInterval(wallOffset) }

    /// The job with its wall-clock times placed on the time line.
    public func place(_ job: QueuedJob) -> QueuedJob {
        Self.shift(job, by: wallOffset)
    }

    /// Jobs placed with one reading of the clocks (start-up places a queue at a time).
    public func place(_ jobs: [QueuedJob]) -> [QueuedJob] {
        let offset = wallOffset
        return offset == 0 ? jobs : jobs.map { Self.shift($0, by: offset) }
    }

    private static func shift(_ job: QueuedJob, by offset: TimeInterval) -> QueuedJob {
        guard offset != 0 else { return job }
        var placed = job
        placed.notBefore = job.notBefore?.addingTimeInterval(-offset)
        placed.backoffUntil = job.backoffUntil?.addingTimeInterval(-offset)
        placed.deadline = job.deadline?.addingTimeInterval(-offset)
        return placed
    }
}
