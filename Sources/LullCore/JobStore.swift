import Foundation

/// The durable home of jobs and their event log. The daemon talks to it through this seam so the
/// core and the dispatcher can be tested without SQLite.
public protocol JobStore: Sendable {
    /// Makes the jobs durable and returns them with their ids. Returning means committed.
    func insert(_ jobs: [NewJob]) async throws -> [Job]
    /// Applies a state change and its event in one durable transaction; when the change applies
    /// and `successor` is given, creates that job in the same transaction (the next occurrence of
    /// a periodic job, so a crash can neither lose it nor create it twice).
    func apply(_ update: JobUpdate, creating successor: NewJob?) async throws -> (JobUpdateOutcome, successor: Job?)
    /// The job, nil when there is none; throws `UnreadableJob` when its row no longer decodes.
    func job(_ id: JobID) async throws -> Job?
    /// Applies a change to a job whose row no longer decodes from its plain columns alone (a
    /// cancel: the one command such a job takes), with its event; a job that reaches a final
    /// state this way owes no completion hook (it cannot be described to one). The job's
    /// `problem` is not read again, so empty.
    func applyToUnreadable(_ update: JobUpdate) async throws -> UnreadableUpdateOutcome
    /// Jobs that pass `filter`, by id, within the limit and `StorePage.byteBudget`; a row that
    /// no longer decodes is in its place as `UnreadableJob`.
    func list(_ filter: JobFilter) async throws -> StorePage<StoredJob>
    /// Jobs per state; `owner == nil` counts every owner.
    func countsByState(owner: OwnerID?) async throws -> [JobState: Int]
    /// Jobs in `state` over every owner: only those rows are read, however long the history.
    func count(in state: JobState) async throws -> Int
    /// Jobs in `states` per owner (the unfinished ones count against quotas).
    func countsByOwner(in states: Set<JobState>) async throws -> [OwnerID: Int]
    /// Jobs per class and state over every owner (metrics).
    func countsByClassAndState() async throws -> [JobCountKey: Int]
    /// Events with `seq > after`, oldest first, within the limit and `StorePage.byteBudget`;
    /// `owner == nil` means every owner.
    func events(after: Int64, owner: OwnerID?, limit: Int) async throws -> StorePage<JobEvent>
    /// Puts jobs a previous run left `running` back to `queued`, with a `requeued` event.
    func requeueInterrupted(at time: Date) async throws -> [JobID]
    /// Up to `limit` `queued` jobs with ids above `after`, as the scheduler sees them, in
    /// submission order: start-up reads the queue page by page.
    func queuedJobs(after: JobID?, limit: Int) async throws -> [QueuedJob]
    /// Validators of the last successful fetch of `url` into `destination` by `owner`.
    func fetchValidators(owner: OwnerID, url: String, destination: String) async throws -> FetchValidators?
    /// Ended jobs whose `on_complete_unit` has not been started yet, oldest first; one whose row
    /// no longer decodes is there as `UnreadableJob`.
    func pendingCompletionHooks() async throws -> [StoredJob]
    /// Records that the job's completion hook ran (started or failed for good).
    func completionHookRan(_ id: JobID, at time: Date) async throws
}

extension JobStore {
    /// Applies a state change and its event in one durable transaction.
    public func apply(_ update: JobUpdate) async throws -> JobUpdateOutcome {
        try await apply(update, creating: nil).0
    }
}

public struct JobCountKey: Hashable, Sendable {
    public var jobClass: String
    public var state: JobState

    public init(jobClass: String, state: JobState) {
        self.jobClass = jobClass
        self.state = state
    }
}

/// One durable change to a job, recorded with its event.
public struct JobUpdate: Sendable, Equatable {
    public var id: JobID
    /// Compare-and-set: the update applies only while the job is in one of these states.
    public var from: Set<JobState>
    public var state: JobState
    public var event: JobEventType
    public var time: Date
    public var countsAsAttempt: Bool
    /// The daemon interrupted the running attempt (a stop or sleep), the transfer did not end
    /// it: it is taken back from `attempts`, so restarts do not use up `retry.max_attempts`, and
    /// the next start continues it under the same number.
    public var interruptsAttempt: Bool
    public var progress: TransferProgress?
    /// run: the command's sampled usage, carried by the event (not stored in the job's row).
    public var usage: CommandUsage?
    public var result: JobResult?
    public var failure: JobFailure?
    public var message: String?
    /// Replaces the resume state when set.
    public var resume: ResumeState?
    /// The job's retry time after the update (nil clears it).
    public var retryAt: Date?
    /// Store the change without an event (resume checkpoints).
    public var silent: Bool
    /// The attempt was stopped because this condition lapsed: counted in `Job.stops`, named in
    /// the event.
    public var stop: WaitingReason.Code?

    /// A running job's progress report (bytes moved, a command's usage), which changes nothing a
    /// restart depends on: the store may commit it without waiting for the disk. A resume point
    /// is not one: it says where a restart continues.
    public var isReport: Bool {
        event == .progress && from == [.running] && state == .running && resume == nil && result == nil
            && failure == nil && stop == nil && !countsAsAttempt && !interruptsAttempt
    }

    public init(
        id: JobID,
        from: Set<JobState>,
        to state: JobState,
        event: JobEventType,
        time: Date,
        countsAsAttempt: Bool = false,
        progress: TransferProgress? = nil,
        result: JobResult? = nil,
        failure: JobFailure? = nil,
        message: String? = nil,
        resume: ResumeState? = nil,
        retryAt: Date? = nil,
        silent: Bool = false,
        interruptsAttempt: Bool = false,
        stop: WaitingReason.Code? = nil,
        usage: CommandUsage? = nil
    ) {
        self.usage = usage
        self.stop = stop
        self.interruptsAttempt = interruptsAttempt
        self.resume = resume
        self.retryAt = retryAt
        self.silent = silent
        self.id = id
        self.from = from
        self.state = state
        self.event = event
        self.time = time
        self.countsAsAttempt = countsAsAttempt
        self.progress = progress
        self.result = result
        self.failure = failure
        self.message = message
    }
}

public enum JobUpdateOutcome: Sendable, Equatable {
    case applied(Job)
    case notFound
    /// The job was not in any of the expected states; here it is as it is.
    case conflict(Job)
}
