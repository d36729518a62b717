import Foundation

/// The outcome of one `JobScheduler.decide`: what to start now, what expired, and the one
/// time the daemon should look again if nothing else happens.
public struct SchedulingDecision: Sendable, Equatable {
    /// Jobs to start now, in dispatch order; already counted as running by the scheduler.
    public var start: [QueuedJob]
    /// The subset of `start` that are deferrable jobs riding along on an awake costly link.
    public var coalesced: [JobID]
    /// Jobs whose deadline passed with `on_deadline = expire`; already dropped by the scheduler.
    public var expired: [JobID]
    /// The earliest future time at which a job could become startable or expire without any
    /// other event (a `not_before`, a backoff end, a deadline, a window opening, a release of a
    /// held deferrable job, a quota reset). nil: nothing changes until an event arrives.
    public var nextWakeup: Date?
    /// 1 when this decision starts the first transfer on a sleeping costly (metered/cellular) link.
    public var linkWakeups: Int

    public init(
        start: [QueuedJob] = [],
        coalesced: [JobID] = [],
        expired: [JobID] = [],
        nextWakeup: Date? = nil,
        linkWakeups: Int = 0
    ) {
        self.start = start
        self.coalesced = coalesced
        self.expired = expired
        self.nextWakeup = nextWakeup
        self.linkWakeups = linkWakeups
    }
}

/// Counters since the scheduler was created, for `/metrics` and for measuring coalescing.
public struct SchedulingStatistics: Sendable, Equatable {
    public var decisions = 0
    public var started = 0
    /// Deferrable jobs started because a costly link was already awake.
    public var coalesced = 0
    /// Starts that woke a sleeping costly link.
    public var linkWakeups = 0
    public var expired = 0

    public init() {}
}

/// The result of a what-if: the decision a hypothetical world would produce and, for the
/// jobs that would still wait, why. Nothing in the real scheduler changes.
public struct SchedulingSimulation: Sendable, Equatable {
    public struct WaitingJob: Sendable, Equatable {
        public var id: JobID
        public var reasons: [WaitingReason]
    }

    public var decision: SchedulingDecision
    /// Reasons of the waiting jobs with the lowest ids, at most the limit asked for.
    public var waiting: [WaitingJob]
    /// All queued jobs that would still wait (paused ones included).
    public var waitingCount: Int
}
