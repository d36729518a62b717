import Foundation
import LullCore

/// One entry of the event log as the API shows it.
public struct EventView: Codable, Sendable, Equatable {
    public var seq: Int64
    public var jobId: Int64
    public var ownerUid: UInt32
    public var time: Date
    public var type: JobEventType
    public var state: JobState
    public var attempt: Int?
    public var progress: ProgressView?
    /// run: what the command used, on a sampled `progress` event.
    public var usage: UsageView?
    public var result: ResultView?
    public var error: FailureView?
    public var message: String?
    public var retryAt: Date?
    /// Why a `stopped` event's attempt was stopped (a waiting reason's code).
    public var reason: String?

    enum CodingKeys: String, CodingKey {
        case seq
        case jobId = "job_id"
        case ownerUid = "owner_uid"
        case time, type, state, attempt, progress, usage, result, error, message
        case retryAt = "retry_at"
        case reason
    }

    public init(_ event: JobEvent) {
        seq = event.seq
        jobId = event.jobID.rawValue
        ownerUid = event.owner.rawValue
        time = event.time
        type = event.type
        state = event.state
        attempt = event.detail?.attempt
        progress = event.detail?.progress.map(ProgressView.init)
        usage = event.detail?.usage.map(UsageView.init)
        result = event.detail?.result.map(ResultView.init)
        error = event.detail?.failure.map(FailureView.init)
        message = event.detail?.message
        retryAt = event.detail?.retryAt
        reason = event.detail?.reason
    }
}

/// A page of events, for clients that poll instead of following the stream.
public struct EventPageView: Codable, Sendable, Equatable {
    public var events: [EventView]
    /// The cursor to pass as `after` next time.
    public var lastSeq: Int64

    enum CodingKeys: String, CodingKey {
        case events
        case lastSeq = "last_seq"
    }

    public init(events: [EventView], lastSeq: Int64) {
        self.events = events
        self.lastSeq = lastSeq
    }
}
