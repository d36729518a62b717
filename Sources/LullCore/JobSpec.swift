import Foundation

/// What a client asked for, after validation: the settings every kind shares plus the kind's own
/// payload. Stored verbatim (as JSON) so a later version of the daemon can read specs written by
/// an earlier one; new fields are therefore optional.
public struct JobSpec: Sendable, Equatable {
    public var payload: JobPayload
    public var label: String?
    public var jobClass: String
    /// Overrides of the class's retry settings for this job.
    public var retry: RetrySettings?
    /// Overrides of the default timeouts for this job.
    public var timeouts: TimeoutSettings?
    /// Conditions stricter than the class's (network, AC, battery).
    public var constraints: JobConstraints?
    /// Do not start before this time.
    public var notBefore: Date?
    /// What happens at this time if the job is still waiting: see `onDeadline`.
    public var deadline: Date?
    public var onDeadline: DeadlineAction?
    /// A recurring job: when this occurrence ends, the next one is created with its own window.
    public var periodic: PeriodicSchedule?
    /// The period this occurrence was scheduled with (adaptive fetches stretch it); nil for the first.
    public var periodInterval: TimeInterval?
    /// A systemd unit to start when the job ends (succeeded, failed, cancelled or expired).
    public var onCompleteUnit: String?
    /// The job's own bandwidth limit, down and up, besides its class's and the daemon's.
    public var maxBytesPerSecond: Int64?

    public init(
        _ payload: JobPayload,
        label: String? = nil,
        jobClass: String = JobClassName.default,
        retry: RetrySettings? = nil,
        timeouts: TimeoutSettings? = nil,
        constraints: JobConstraints? = nil,
        notBefore: Date? = nil,
        deadline: Date? = nil,
        onDeadline: DeadlineAction? = nil,
        periodic: PeriodicSchedule? = nil,
        periodInterval: TimeInterval? = nil,
        onCompleteUnit: String? = nil,
        maxBytesPerSecond: Int64? = nil
    ) {
        self.payload = payload
        self.label = label
        self.jobClass = jobClass
        self.retry = retry
        self.timeouts = timeouts
        self.constraints = constraints
        self.notBefore = notBefore
        self.deadline = deadline
        self.onDeadline = onDeadline
        self.periodic = periodic
        self.periodInterval = periodInterval
        self.onCompleteUnit = onCompleteUnit
        self.maxBytesPerSecond = maxBytesPerSecond
    }

    public var kind: JobKind { payload.kind }
    /// The host the job talks to, lowercased (per-host limits, proxy decisions); nil for work
    /// that talks to no host.
    public var host: String? { payload.host }

    /// The spec with what the daemon decides once at submission filled in (see
    /// `KindPayload.prepared`).
    public func prepared() -> JobSpec {
        var spec = self
        spec.payload = payload.contents.prepared().payload
        return spec
    }
}

// The stored form: the common settings' property names and the payload's members in one flat
// object, as release 0.1 wrote it (`JobSpec+StoredJSON` in LullStore writes it without
// JSONEncoder; this form reads it back).
extension JobSpec: Codable {
    enum CodingKeys: String, CodingKey {
        case kind, label, jobClass, retry, timeouts, constraints, notBefore, deadline, onDeadline, periodic
        case periodInterval, onCompleteUnit, maxBytesPerSecond
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        payload = try JobPayload(kind: container.decode(JobKind.self, forKey: .kind), from: decoder)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        jobClass = try container.decode(String.self, forKey: .jobClass)
        retry = try container.decodeIfPresent(RetrySettings.self, forKey: .retry)
        timeouts = try container.decodeIfPresent(TimeoutSettings.self, forKey: .timeouts)
        constraints = try container.decodeIfPresent(JobConstraints.self, forKey: .constraints)
        notBefore = try container.decodeIfPresent(Date.self, forKey: .notBefore)
        deadline = try container.decodeIfPresent(Date.self, forKey: .deadline)
        onDeadline = try container.decodeIfPresent(DeadlineAction.self, forKey: .onDeadline)
        periodic = try container.decodeIfPresent(PeriodicSchedule.self, forKey: .periodic)
        periodInterval = try container.decodeIfPresent(TimeInterval.self, forKey: .periodInterval)
        onCompleteUnit = try container.decodeIfPresent(String.self, forKey: .onCompleteUnit)
        maxBytesPerSecond = try container.decodeIfPresent(Int64.self, forKey: .maxBytesPerSecond)
    }

    public func encode(to encoder: any Encoder) throws {
        try payload.contents.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encode(jobClass, forKey: .jobClass)
        try container.encodeIfPresent(retry, forKey: .retry)
        try container.encodeIfPresent(timeouts, forKey: .timeouts)
        try container.encodeIfPresent(constraints, forKey: .constraints)
        try container.encodeIfPresent(notBefore, forKey: .notBefore)
        try container.encodeIfPresent(deadline, forKey: .deadline)
        try container.encodeIfPresent(onDeadline, forKey: .onDeadline)
        try container.encodeIfPresent(periodic, forKey: .periodic)
        try container.encodeIfPresent(periodInterval, forKey: .periodInterval)
        try container.encodeIfPresent(onCompleteUnit, forKey: .onCompleteUnit)
        try container.encodeIfPresent(maxBytesPerSecond, forKey: .maxBytesPerSecond)
    }
}

/// Per-job retry overrides; nil fields take the class's or the daemon's defaults.
/// Its JSON form (snake_case, unknown keys refused) is also the `retry` object of the API.
public struct RetrySettings: Sendable, Equatable, Codable {
    public var maxAttempts: Int?
    public var baseSeconds: Double?
    public var capSeconds: Double?

    public init(maxAttempts: Int? = nil, baseSeconds: Double? = nil, capSeconds: Double? = nil) {
        self.maxAttempts = maxAttempts
        self.baseSeconds = baseSeconds
        self.capSeconds = capSeconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case maxAttempts = "max_attempts"
        case baseSeconds = "base_seconds"
        case capSeconds = "cap_seconds"
    }

    public init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, keyedBy: CodingKeys.self)
        maxAttempts = try container.decodeIfPresent(Int.self, forKey: .maxAttempts)
        baseSeconds = try container.decodeIfPresent(Double.self, forKey: .baseSeconds)
        capSeconds = try container.decodeIfPresent(Double.self, forKey: .capSeconds)
    }
}

/// Per-job timeout overrides, in seconds. Also the `timeouts` object of the API.
public struct TimeoutSettings: Sendable, Equatable, Codable {
    public var connectSeconds: Double?
    public var idleSeconds: Double?
    public var totalSeconds: Double?

    public init(connectSeconds: Double? = nil, idleSeconds: Double? = nil, totalSeconds: Double? = nil) {
        self.connectSeconds = connectSeconds
        self.idleSeconds = idleSeconds
        self.totalSeconds = totalSeconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case connectSeconds = "connect_seconds"
        case idleSeconds = "idle_seconds"
        case totalSeconds = "total_seconds"
    }

    public init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, keyedBy: CodingKeys.self)
        connectSeconds = try container.decodeIfPresent(Double.self, forKey: .connectSeconds)
        idleSeconds = try container.decodeIfPresent(Double.self, forKey: .idleSeconds)
        totalSeconds = try container.decodeIfPresent(Double.self, forKey: .totalSeconds)
    }
}

/// The class names every policy starts with.
public enum JobClassName {
    public static let `default` = "default"
    public static let builtIn = ["interactive", "default", "utility", "background", "maintenance"]
}

extension QueuedJob {
    /// The scheduler's view of a stored job.
    public init(_ job: Job) {
        let contents = job.spec.payload.contents
        self.init(
            id: job.id,
            owner: job.owner,
            kind: job.spec.kind,
            className: job.spec.jobClass,
            host: contents.host ?? "",
            constraints: job.spec.constraints ?? .none,
            notBefore: job.spec.notBefore,
            backoffUntil: job.retryAt,
            deadline: job.spec.deadline,
            onDeadline: job.spec.onDeadline ?? .default,
            expectedBytesDown: contents.expectedBytesDown,
            expectedBytesUp: contents.expectedBytesUp
        )
    }
}
