import Foundation
import LullCore

/// Time that moves only when a test moves it: both clocks agree (no wall-clock jump).
struct VirtualClock {
    var now = epoch

    mutating func advance(_ seconds: Double) { now = now.addingTimeInterval(seconds) }

    var instant: DispatchInstant { DispatchInstant(now) }
}

/// Readings a test scripts, counting how often a decision asks for them.
final class ScriptedReadings: DispatchReadings {
    var nextPressure = PressureState(cpu: 0, memory: 0, source: "test")
    var pressureReads = 0
    var localTimeReads: [Date] = []
    /// How long each local-time reading holds.
    var horizon: TimeInterval = 3600

    func pressure() -> PressureState {
        pressureReads += 1
        return nextPressure
    }

    func localTime(at wall: Date) -> (LocalTime, knownUntil: Date) {
        localTimeReads.append(wall)
        return (.utc, wall.addingTimeInterval(horizon))
    }
}

/// A stored job as the dispatcher gets it back from the store. Every spec field a test sets is
/// set here, after a minimal push spec.
func storedJob(
    _ id: Int64,
    owner: UInt32 = 1000,
    jobClass: String = JobClassName.default,
    attempts: Int = 1,
    periodic: PeriodicSchedule? = nil,
    deadline: Date? = nil,
    retry: RetrySettings? = nil,
    state: JobState = .running
) -> Job {
    var spec = JobSpec(.push(PushJob(url: "http://example.org/hook", body: Array("x".utf8), idempotencyKey: "first")))
    spec.jobClass = jobClass
    spec.periodic = periodic
    spec.deadline = deadline
    spec.retry = retry
    return Job(id: JobID(id), owner: OwnerID(owner), spec: spec, state: state, createdAt: epoch, attempts: attempts)
}

extension Array where Element == DispatchAction {
    var startedIDs: [Int64] {
        compactMap { if case .start(let job) = $0 { job.id.rawValue } else { nil } }
    }
}
