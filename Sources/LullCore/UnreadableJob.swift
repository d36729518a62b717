import Foundation

/// A job whose stored row no longer decodes (a manual edit, a damaged page): what its plain
/// columns still say. Such a job is shown and can be cancelled, but never runs.
public struct UnreadableJob: Error, Sendable, Equatable, CustomStringConvertible {
    public var id: JobID
    public var owner: OwnerID
    public var kind: JobKind
    public var state: JobState
    public var jobClass: String
    public var label: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var attempts: Int
    /// Which column failed and why, for the person who has to deal with it.
    public var problem: String

    public init(
        id: JobID,
        owner: OwnerID,
        kind: JobKind,
        state: JobState,
        jobClass: String,
        label: String?,
        createdAt: Date,
        updatedAt: Date,
        attempts: Int,
        problem: String
    ) {
        self.id = id
        self.owner = owner
        self.kind = kind
        self.state = state
        self.jobClass = jobClass
        self.label = label
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.attempts = attempts
        self.problem = problem
    }

    public var description: String {
        "job \(id)'s stored row cannot be read (\(problem))"
    }

    /// What the person can do about it, for the view and for errors.
    public var remedy: String {
        JobCommand.cancel.target(from: state).isSuccess
            ? "lullctl cancel \(id) takes it out of the queue"
            : "it is removed with the other ended jobs (retention)"
    }
}

/// What a change to a job whose row no longer decodes did (see `JobStore.applyToUnreadable`).
public enum UnreadableUpdateOutcome: Sendable, Equatable {
    /// Applied; the job's plain columns as they are now.
    case applied(UnreadableJob)
    /// The job was not in a state the change applies from; as it is.
    case conflict(UnreadableJob)
    case notFound
}

/// A row of the jobs table as a page of the API reads it.
public enum StoredJob: Sendable, Equatable {
    case readable(Job)
    case unreadable(UnreadableJob)

    public var id: JobID {
        switch self {
        case .readable(let job): job.id
        case .unreadable(let job): job.id
        }
    }

    public var owner: OwnerID {
        switch self {
        case .readable(let job): job.owner
        case .unreadable(let job): job.owner
        }
    }

    /// The job, when its row decodes.
    public var job: Job? {
        guard case .readable(let job) = self else { return nil }
        return job
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
