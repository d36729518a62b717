import Foundation

/// An entry in the durable, sequence-numbered event log. Clients read from a cursor (`seq`),
/// so one that was not running when something happened still learns of it.
public struct JobEvent: Sendable, Equatable {
    public var seq: Int64
    public var jobID: JobID
    public var owner: OwnerID
    public var time: Date
    public var type: JobEventType
    /// The job's state right after the event.
    public var state: JobState
    public var detail: JobEventDetail?

    public init(
        seq: Int64,
        jobID: JobID,
        owner: OwnerID,
        time: Date,
        type: JobEventType,
        state: JobState,
        detail: JobEventDetail? = nil
    ) {
        self.seq = seq
        self.jobID = jobID
        self.owner = owner
        self.time = time
        self.type = type
        self.state = state
        self.detail = detail
    }
}

public enum JobEventType: String, Sendable, Codable, CaseIterable {
    case submitted
    case started
    case progress
    case requeued
    /// A running attempt was stopped because its conditions lapsed; the job is queued again.
    case stopped
    /// A retryable failure; the job waits in the queue until `retry_at`.
    case retrying
    case paused
    case resumed
    case succeeded
    case failed
    case cancelled
    case expired
}

/// What an event carries beyond the state change.
public struct JobEventDetail: Sendable, Equatable, Codable {
    public var progress: TransferProgress?
    /// run: what the command used at a sampled `progress` event.
    public var usage: CommandUsage?
    public var result: JobResult?
    public var failure: JobFailure?
    public var attempt: Int?
    public var message: String?
    public var retryAt: Date?
    /// Why a `stopped` attempt was stopped: the waiting reason's code (`on_battery`, `metered`...).
    public var reason: String?

    public init(
        progress: TransferProgress? = nil,
        result: JobResult? = nil,
        failure: JobFailure? = nil,
        attempt: Int? = nil,
        message: String? = nil,
        retryAt: Date? = nil,
        reason: String? = nil,
        usage: CommandUsage? = nil
    ) {
        self.usage = usage
        self.reason = reason
        self.retryAt = retryAt
        self.progress = progress
        self.result = result
        self.failure = failure
        self.attempt = attempt
        self.message = message
    }
}
