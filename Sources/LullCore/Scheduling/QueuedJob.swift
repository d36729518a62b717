import Foundation

/// What the scheduler needs to know about a queued job — not the whole `Job`.
/// Submission order is the job id (ids are assigned in submission order), so a retried job
/// keeps its place.
public struct QueuedJob: Sendable, Equatable {
    public var id: JobID
    public var owner: OwnerID
    public var kind: JobKind
    /// Class name; an unknown class is scheduled as `default`.
    public var className: String
    /// The host the job talks to (lowercased `host[:port]`), for the per-host limit.
    public var host: String
    public var constraints: JobConstraints
    /// Not before this time (the client's `not_before`, or a periodic job's flex window opening).
    public var notBefore: Date?
    /// Not before this time either: the retry backoff after a failed attempt.
    public var backoffUntil: Date?
    public var deadline: Date?
    public var onDeadline: DeadlineAction
    public var expectedBytesDown: Int64?
    public var expectedBytesUp: Int64?
    /// Whether the job may be held on a costly link to ride along with other traffic; nil takes
    /// the class's `coalesce`. Only a job with a deadline is ever held.
    public var deferrable: Bool?
    /// Stopped on lost conditions: starts only once they have held this many seconds.
    public var holdDown: Double?

    public init(
        id: JobID,
        owner: OwnerID,
        kind: JobKind = .fetch,
        className: String = JobClassName.default,
        host: String,
        constraints: JobConstraints = .none,
        notBefore: Date? = nil,
        backoffUntil: Date? = nil,
        deadline: Date? = nil,
        onDeadline: DeadlineAction = .run,
        expectedBytesDown: Int64? = nil,
        expectedBytesUp: Int64? = nil,
        deferrable: Bool? = nil
    ) {
        self.id = id
        self.owner = owner
        self.kind = kind
        self.className = className
        self.host = host
        self.constraints = constraints
        self.notBefore = notBefore
        self.backoffUntil = backoffUntil
        self.deadline = deadline
        self.onDeadline = onDeadline
        self.expectedBytesDown = expectedBytesDown
        self.expectedBytesUp = expectedBytesUp
        self.deferrable = deferrable
    }

    /// Expected bytes down plus up, when either is known.
    public var expectedBytes: Int64? {
        switch (expectedBytesDown, expectedBytesUp) {
        case (nil, nil): nil
        case let (down, up): Self.total(down ?? 0, up ?? 0)
        }
    }

    /// Both directions together. Each comes from a client (and rows stored before it was
    /// validated may be negative), so a sum past `Int64.max` stays there instead of trapping.
    static func total(_ down: Int64, _ up: Int64) -> Int64 {
        let (sum, overflow) = max(0, down).addingReportingOverflow(max(0, up))
        return overflow ? .max : sum
    }

    /// The earliest time the job may start as far as its own timing goes.
    public var readyAt: Date? {
        switch (notBefore, backoffUntil) {
        case (nil, nil): nil
        case let (a?, nil): a
        case let (nil, b?): b
        case let (a?, b?): max(a, b)
        }
    }
}
