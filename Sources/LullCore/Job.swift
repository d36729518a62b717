import Foundation

/// One unit of work and everything known about it.
public struct Job: Sendable, Equatable {
    public var id: JobID
    public var owner: OwnerID
    public var spec: JobSpec
    public var state: JobState
    public var createdAt: Date
    public var updatedAt: Date
    /// Tries started so far; waiting for conditions is not a try.
    public var attempts: Int
    public var progress: TransferProgress?
    public var result: JobResult?
    public var failure: JobFailure?

    public init(
        id: JobID, owner: OwnerID, spec: JobSpec, state: JobState = .queued,
        createdAt: Date, updatedAt: Date? = nil, attempts: Int = 0,
        progress: TransferProgress? = nil, result: JobResult? = nil, failure: JobFailure? = nil
    ) {
        self.id = id
        self.owner = owner
        self.spec = spec
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.attempts = attempts
        self.progress = progress
        self.result = result
        self.failure = failure
    }
}

/// A job accepted for storage but not yet given an id.
public struct NewJob: Sendable, Equatable {
    public var owner: OwnerID
    public var spec: JobSpec
    public var createdAt: Date

    public init(owner: OwnerID, spec: JobSpec, createdAt: Date) {
        self.owner = owner
        self.spec = spec
        self.createdAt = createdAt
    }
}

/// Bytes moved so far by a running or interrupted transfer.
public struct TransferProgress: Sendable, Equatable, Codable {
    public var bytesDone: Int64
    public var bytesTotal: Int64?

    public init(bytesDone: Int64, bytesTotal: Int64?) {
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
    }
}

/// What a finished job produced.
public struct JobResult: Sendable, Equatable, Codable {
    public var httpStatus: Int?
    public var bytes: Int64?
    public var sha256: String?
    /// fetch: the file now at the destination.
    public var path: String?

    public init(httpStatus: Int? = nil, bytes: Int64? = nil, sha256: String? = nil, path: String? = nil) {
        self.httpStatus = httpStatus
        self.bytes = bytes
        self.sha256 = sha256
        self.path = path
    }
}

/// Why an attempt failed: a machine-readable code, a human message, and whether trying again may help.
public struct JobFailure: Error, Sendable, Equatable, Codable {
    public var code: String
    public var message: String
    public var retryable: Bool

    public init(code: String, message: String, retryable: Bool) {
        self.code = code
        self.message = message
        self.retryable = retryable
    }
}
