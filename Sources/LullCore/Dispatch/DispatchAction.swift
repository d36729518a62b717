import Foundation

/// What the dispatcher's state machine asks the daemon to do, in the order given.
public enum DispatchAction: Sendable, Equatable {
    /// The queue, the running set or the mode may have changed: the status line is due again.
    case statusChanged
    /// Jobs wait on pressure alone (`true`) or no longer: while they do, pressure is sampled,
    /// so they start when it falls.
    case holdOnPressure(Bool)
    /// Run an attempt of the job; the scheduler counts it as running already.
    case start(QueuedJob)
    /// Stop the running attempt: its conditions lapsed. It is queued again with its resume point.
    case stop(JobID, reason: WaitingReason.Code)
    /// Record that the job's deadline passed before it could start; the scheduler let it go.
    case expire(JobID)
    /// Set the one timer for this point of the time line, replacing the one set before.
    case armTimer(at: Date)
    /// Cancel the timer: nothing changes until an event arrives.
    case disarmTimer
}
