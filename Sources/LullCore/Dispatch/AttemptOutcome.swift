/// How one attempt of a job ended, as its runner reports it.
public enum AttemptOutcome: Sendable, Equatable {
    case succeeded(JobResult)
    case failed(JobFailure)
    /// The attempt was cancelled before it ended: by a command, a stop or the machine's sleep.
    case interrupted
}

/// What to record once an attempt ended: the state machine's answer to an `AttemptOutcome`.
public enum AttemptConclusion: Sendable, Equatable {
    /// The job succeeded; a periodic job's next occurrence is stored with it.
    case succeed(JobResult, next: PeriodicSuccessor?)
    /// The job goes back to the queue and waits `delay` seconds before its next attempt.
    case retry(JobFailure, delay: Double)
    /// The job failed for good; a periodic job's next occurrence is stored with it.
    case fail(JobFailure, next: PeriodicSuccessor?)
    /// The daemon interrupted the attempt: the job goes back to the queue with its resume point.
    case requeue(AttemptInterruption)
    /// A command ended the attempt and recorded the job's new state itself.
    case settledByCommand
}

/// Why the daemon cut an attempt short; such an attempt does not count.
public enum AttemptInterruption: Sendable, Equatable {
    case sleep
    case stop
    /// The job's conditions lapsed while it ran; it resumes once they hold again.
    case conditionsLost(WaitingReason.Code)
    /// A frozen command's attempt ended while it was paused, and the resume found nothing to thaw.
    case endedWhilePaused
    /// The service manager would not thaw the command; its attempt was ended.
    case notThawed

    /// The event's words for it.
    public var message: String {
        switch self {
        case .conditionsLost(let reason):
            "stopped: its conditions no longer hold (\(reason.rawValue)); it resumes once they hold again"
        case .sleep: "the machine is going to sleep; the job resumes after it wakes up"
        case .stop: "the daemon is stopping; the job resumes when it starts again"
        case .endedWhilePaused: "its attempt had ended while it was paused; it runs again"
        case .notThawed: "its command could not be thawed; it runs again"
        }
    }

    /// The `reason` field of the log line.
    public var logReason: String {
        switch self {
        case .sleep: "sleep"
        case .stop: "stop"
        case .conditionsLost(let reason): reason.rawValue
        case .endedWhilePaused: "ended_while_paused"
        case .notThawed: "not_thawed"
        }
    }
}
