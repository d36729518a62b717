import Foundation

/// What a client asked for, after validation. Stored verbatim (as JSON) so a later version of
/// the daemon can read specs written by an earlier one; new fields are therefore optional.
public struct JobSpec: Sendable, Equatable, Codable {
    public var kind: JobKind
    public var url: String
    /// fetch: absolute path the downloaded file is renamed to once verified.
    public var destination: String?
    /// upload: absolute path of the file to send.
    public var source: String?
    /// push: HTTP method (POST, PUT or PATCH).
    public var method: String?
    /// push and upload: extra request headers.
    public var headers: [String: String]?
    /// push: content type of the body.
    public var contentType: String?
    /// push: the payload, already decoded from text or base64.
    public var body: [UInt8]?
    public var label: String?
    public var jobClass: String
    /// fetch: the SHA-256 (lowercase hex) the file must have.
    public var sha256: String?
    /// fetch: the size the file must have, also used for the free-space check before starting.
    public var expectedBytes: Int64?
    /// fetch: refuse to download more than this many bytes.
    public var maxBytes: Int64?
    /// fetch: the permission bits of the file once in place. The daemon fills in
    /// `FileMode.fetchDefault` at submission; nil only for jobs stored before the field
    /// existed, whose files are left to the daemon's umask as they were then.
    public var fileMode: FileMode?
    /// upload: how the file is sent.
    public var uploadProtocol: UploadProtocol?
    /// upload with multipart: the form field that carries the file.
    public var formField: String?
    /// push: sent as `Idempotency-Key` on every attempt; generated at submission when absent.
    public var idempotencyKey: String?
    /// Overrides of the class's retry settings for this job.
    public var retry: RetrySettings?
    /// Overrides of the default transfer timeouts for this job.
    public var timeouts: TimeoutSettings?
    /// Conditions stricter than the class's (network, AC, battery).
    public var constraints: JobConstraints?
    /// Do not start before this time.
    public var notBefore: Date?
    /// What happens at this time if the job is still waiting: see `onDeadline`.
    public var deadline: Date?
    public var onDeadline: DeadlineAction?
    /// Expected bytes to send (upload/push); what the job downloads is `expectedBytes`.
    public var expectedBytesUp: Int64?
    /// A recurring job: when this occurrence ends, the next one is created with its own window.
    public var periodic: PeriodicSchedule?
    /// The period this occurrence was scheduled with (adaptive fetches stretch it); nil for the first.
    public var periodInterval: TimeInterval?
    /// A systemd unit to start when the job ends (succeeded, failed, cancelled or expired).
    public var onCompleteUnit: String?
    /// upload with tus: the most bytes one `PATCH` carries (nil: `[transfers] tus_chunk_bytes`).
    public var chunkBytes: Int64?
    /// A PEM file of certificate authorities trusted for this job besides the system's, read
    /// with the owner's rights.
    public var caFile: String?

    public init(
        kind: JobKind,
        url: String,
        destination: String? = nil,
        source: String? = nil,
        method: String? = nil,
        headers: [String: String]? = nil,
        contentType: String? = nil,
        body: [UInt8]? = nil,
        label: String? = nil,
        jobClass: String = JobClassName.default,
        sha256: String? = nil,
        expectedBytes: Int64? = nil,
        maxBytes: Int64? = nil,
        uploadProtocol: UploadProtocol? = nil,
        formField: String? = nil,
        idempotencyKey: String? = nil,
        retry: RetrySettings? = nil,
        timeouts: TimeoutSettings? = nil,
        constraints: JobConstraints? = nil,
        notBefore: Date? = nil,
        deadline: Date? = nil,
        onDeadline: DeadlineAction? = nil,
        expectedBytesUp: Int64? = nil,
        periodic: PeriodicSchedule? = nil,
        periodInterval: TimeInterval? = nil,
        onCompleteUnit: String? = nil,
        fileMode: FileMode? = nil,
        chunkBytes: Int64? = nil,
        caFile: String? = nil
    ) {
        self.fileMode = fileMode
        self.chunkBytes = chunkBytes
        self.caFile = caFile
        self.periodic = periodic
        self.periodInterval = periodInterval
        self.onCompleteUnit = onCompleteUnit
        self.constraints = constraints
        self.notBefore = notBefore
        self.deadline = deadline
        self.onDeadline = onDeadline
        self.expectedBytesUp = expectedBytesUp
        self.kind = kind
        self.url = url
        self.destination = destination
        self.source = source
        self.method = method
        self.headers = headers
        self.contentType = contentType
        self.body = body
        self.label = label
        self.jobClass = jobClass
        self.sha256 = sha256
        self.expectedBytes = expectedBytes
        self.maxBytes = maxBytes
        self.uploadProtocol = uploadProtocol
        self.formField = formField
        self.idempotencyKey = idempotencyKey
        self.retry = retry
        self.timeouts = timeouts
    }

    /// The host part of the URL, lowercased (per-host limits, proxy decisions).
    public var host: String? {
        // On the UTF-8 view: this runs several times per submission, and a search through
        // Characters (`firstRange(of:)`) cost more than the rest of the submission's validation.
        let utf8 = url.utf8
        guard let separator = utf8.indices.first(where: { utf8[$0...].starts(with: "://".utf8) }) else { return nil }
        let authority = utf8[utf8.index(separator, offsetBy: 3)...].prefix {
            $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
        }
        let hostPort = authority.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false).last ?? authority
        let host: Substring.UTF8View.SubSequence
        if hostPort.first == UInt8(ascii: "[") {
            host = hostPort.dropFirst().prefix { $0 != UInt8(ascii: "]") }
        } else {
            host = hostPort.prefix { $0 != UInt8(ascii: ":") }
        }
        return String(decoding: host, as: UTF8.self).lowercased()
    }
}

extension JobSpec {
    /// What `chunk_bytes` and `[transfers] tus_chunk_bytes` may be: 64 KiB, the least a `PATCH`
    /// shrinks to after a `413`, to 1 TiB.
    public static let chunkBytesRange: ClosedRange<Int64> = (64 << 10)...(1 << 40)
}

/// How an upload sends its file.
public enum UploadProtocol: String, Sendable, Codable, CaseIterable {
    /// The file is the request body (PUT or POST).
    case raw
    /// The file is one part of a `multipart/form-data` POST.
    case multipart
    /// Resumable upload with the tus 1.0 protocol (creation + core).
    case tus
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
        self.init(
            id: job.id,
            owner: job.owner,
            kind: job.spec.kind,
            className: job.spec.jobClass,
            host: job.spec.host ?? "",
            constraints: job.spec.constraints ?? .none,
            notBefore: job.spec.notBefore,
            backoffUntil: job.retryAt,
            deadline: job.spec.deadline,
            onDeadline: job.spec.onDeadline ?? .default,
            expectedBytesDown: job.spec.expectedBytes,
            expectedBytesUp: job.spec.expectedBytesUp
        )
    }
}
