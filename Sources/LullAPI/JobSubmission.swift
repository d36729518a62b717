import Foundation
import LullCore

/// The body of `POST /v1/jobs`: what a client asks for, in wire form. Unknown fields are refused
/// by name, so a typo such as `destinaton` is an error rather than a silently ignored option.
public struct JobSubmission: Codable, Sendable, Equatable {
    public var kind: JobKind
    public var url: String
    public var destination: String?
    public var source: String?
    public var method: String?
    public var headers: [String: String]?
    public var contentType: String?
    /// push: the payload as UTF-8 text.
    public var body: String?
    /// push: the payload as base64, for binary data.
    public var bodyBase64: String?
    public var label: String?
    public var jobClass: String?
    public var sha256: String?
    public var expectedBytes: Int64?
    public var maxBytes: Int64?
    /// fetch: the file's permission bits as octal digits ("0644").
    public var mode: String?
    public var uploadProtocol: UploadProtocol?
    public var formField: String?
    public var idempotencyKey: String?
    public var retry: RetrySettings?
    public var timeouts: TimeoutSettings?
    public var network: JobConstraints.Network?
    public var requiresAC: Bool?
    public var minBattery: Double?
    /// Start only while nobody uses the machine.
    public var requiresIdle: Bool?
    public var notBefore: Date?
    public var deadline: Date?
    public var onDeadline: DeadlineAction?
    public var expectedBytesUp: Int64?
    public var periodic: PeriodicSchedule?
    public var onCompleteUnit: String?
    /// upload with tus: the most bytes one PATCH carries.
    public var chunkBytes: Int64?
    /// A PEM file of certificate authorities to trust besides the system's.
    public var caFile: String?
    /// The job's own bandwidth limit, bytes per second, down and up.
    public var maxBytesPerSecond: Int64?
    /// run: the program and its arguments, its directory, variables added to its environment,
    /// exit statuses that are retried, the grace between SIGTERM and SIGKILL, the output kept.
    public var argv: [String]?
    public var workingDirectory: String?
    public var environment: [String: String]?
    public var retryExitCodes: [Int]?
    public var stopGraceSeconds: Double?
    public var nice: Int?
    public var outputTailBytes: Int?
    /// run: controls only a systemd unit enforces (`RunResources`).
    public var cpuWeight: Int?
    public var memoryMax: Int64?
    public var ioWeight: Int?
    public var tasksMax: Int?
    /// run: an existing systemd unit to start instead of `argv`.
    public var unit: String?

    public init(
        kind: JobKind,
        url: String,
        destination: String? = nil,
        source: String? = nil,
        method: String? = nil,
        headers: [String: String]? = nil,
        contentType: String? = nil,
        body: String? = nil,
        bodyBase64: String? = nil,
        label: String? = nil,
        jobClass: String? = nil,
        sha256: String? = nil,
        expectedBytes: Int64? = nil,
        maxBytes: Int64? = nil,
        uploadProtocol: UploadProtocol? = nil,
        formField: String? = nil,
        idempotencyKey: String? = nil,
        retry: RetrySettings? = nil,
        timeouts: TimeoutSettings? = nil,
        network: JobConstraints.Network? = nil,
        requiresAC: Bool? = nil,
        minBattery: Double? = nil,
        requiresIdle: Bool? = nil,
        notBefore: Date? = nil,
        deadline: Date? = nil,
        onDeadline: DeadlineAction? = nil,
        expectedBytesUp: Int64? = nil,
        periodic: PeriodicSchedule? = nil,
        onCompleteUnit: String? = nil,
        mode: String? = nil,
        chunkBytes: Int64? = nil,
        caFile: String? = nil,
        maxBytesPerSecond: Int64? = nil,
        argv: [String]? = nil,
        workingDirectory: String? = nil,
        environment: [String: String]? = nil,
        retryExitCodes: [Int]? = nil,
        stopGraceSeconds: Double? = nil,
        nice: Int? = nil,
        outputTailBytes: Int? = nil
    ) {
        self.argv = argv
        self.workingDirectory = workingDirectory
        self.environment = environment
        self.retryExitCodes = retryExitCodes
        self.stopGraceSeconds = stopGraceSeconds
        self.nice = nice
        self.outputTailBytes = outputTailBytes
        self.maxBytesPerSecond = maxBytesPerSecond
        self.mode = mode
        self.chunkBytes = chunkBytes
        self.caFile = caFile
        self.periodic = periodic
        self.onCompleteUnit = onCompleteUnit
        self.network = network
        self.requiresAC = requiresAC
        self.minBattery = minBattery
        self.requiresIdle = requiresIdle
        self.notBefore = notBefore
        self.deadline = deadline
        self.onDeadline = onDeadline
        self.expectedBytesUp = expectedBytesUp
        self.sha256 = sha256
        self.expectedBytes = expectedBytes
        self.maxBytes = maxBytes
        self.uploadProtocol = uploadProtocol
        self.formField = formField
        self.idempotencyKey = idempotencyKey
        self.retry = retry
        self.timeouts = timeouts
        self.kind = kind
        self.url = url
        self.destination = destination
        self.source = source
        self.method = method
        self.headers = headers
        self.contentType = contentType
        self.body = body
        self.bodyBase64 = bodyBase64
        self.label = label
        self.jobClass = jobClass
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, url, destination, source, method, headers
        case contentType = "content_type"
        case body
        case bodyBase64 = "body_base64"
        case label
        case jobClass = "class"
        case sha256
        case expectedBytes = "expected_bytes"
        case maxBytes = "max_bytes"
        case uploadProtocol = "protocol"
        case formField = "form_field"
        case idempotencyKey = "idempotency_key"
        case retry, timeouts, network
        case requiresAC = "requires_ac"
        case minBattery = "min_battery"
        case requiresIdle = "requires_idle"
        case notBefore = "not_before"
        case deadline
        case onDeadline = "on_deadline"
        case expectedBytesUp = "expected_bytes_up"
        case periodic
        case onCompleteUnit = "on_complete_unit"
        case mode
        case chunkBytes = "chunk_bytes"
        case caFile = "ca_file"
        case maxBytesPerSecond = "max_bytes_per_second"
        case argv
        case workingDirectory = "working_directory"
        case environment
        case retryExitCodes = "retry_exit_codes"
        case stopGraceSeconds = "stop_grace_seconds"
        case nice
        case outputTailBytes = "output_tail_bytes"
        case cpuWeight = "cpu_weight"
        case memoryMax = "memory_max"
        case ioWeight = "io_weight"
        case tasksMax = "tasks_max"
        case unit
    }

    public init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, keyedBy: CodingKeys.self)
        kind = try container.decode(JobKind.self, forKey: .kind)
        // A kind without a URL (run) takes none; its absence is "" rather than an optional
        // every transfer would have to unwrap.
        url =
            WireKinds.type(of: kind)?.takesURL == false
            ? try container.decodeIfPresent(String.self, forKey: .url) ?? ""
            : try container.decode(String.self, forKey: .url)
        destination = try container.decodeIfPresent(String.self, forKey: .destination)
        source = try container.decodeIfPresent(String.self, forKey: .source)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        body = try container.decodeIfPresent(String.self, forKey: .body)
        bodyBase64 = try container.decodeIfPresent(String.self, forKey: .bodyBase64)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        jobClass = try container.decodeIfPresent(String.self, forKey: .jobClass)
        sha256 = try container.decodeIfPresent(String.self, forKey: .sha256)
        expectedBytes = try container.decodeIfPresent(Int64.self, forKey: .expectedBytes)
        maxBytes = try container.decodeIfPresent(Int64.self, forKey: .maxBytes)
        uploadProtocol = try container.decodeIfPresent(UploadProtocol.self, forKey: .uploadProtocol)
        formField = try container.decodeIfPresent(String.self, forKey: .formField)
        idempotencyKey = try container.decodeIfPresent(String.self, forKey: .idempotencyKey)
        retry = try container.decodeIfPresent(RetrySettings.self, forKey: .retry)
        timeouts = try container.decodeIfPresent(TimeoutSettings.self, forKey: .timeouts)
        network = try container.decodeIfPresent(JobConstraints.Network.self, forKey: .network)
        requiresAC = try container.decodeIfPresent(Bool.self, forKey: .requiresAC)
        minBattery = try container.decodeIfPresent(Double.self, forKey: .minBattery)
        requiresIdle = try container.decodeIfPresent(Bool.self, forKey: .requiresIdle)
        notBefore = try Self.date(container, .notBefore)
        deadline = try Self.date(container, .deadline)
        onDeadline = try container.decodeIfPresent(DeadlineAction.self, forKey: .onDeadline)
        expectedBytesUp = try container.decodeIfPresent(Int64.self, forKey: .expectedBytesUp)
        periodic = try container.decodeIfPresent(PeriodicSchedule.self, forKey: .periodic)
        onCompleteUnit = try container.decodeIfPresent(String.self, forKey: .onCompleteUnit)
        mode = try container.decodeIfPresent(String.self, forKey: .mode)
        chunkBytes = try container.decodeIfPresent(Int64.self, forKey: .chunkBytes)
        caFile = try container.decodeIfPresent(String.self, forKey: .caFile)
        maxBytesPerSecond = try container.decodeIfPresent(Int64.self, forKey: .maxBytesPerSecond)
        argv = try container.decodeIfPresent([String].self, forKey: .argv)
        workingDirectory = try container.decodeIfPresent(String.self, forKey: .workingDirectory)
        environment = try container.decodeIfPresent([String: String].self, forKey: .environment)
        retryExitCodes = try container.decodeIfPresent([Int].self, forKey: .retryExitCodes)
        stopGraceSeconds = try container.decodeIfPresent(Double.self, forKey: .stopGraceSeconds)
        nice = try container.decodeIfPresent(Int.self, forKey: .nice)
        outputTailBytes = try container.decodeIfPresent(Int.self, forKey: .outputTailBytes)
        cpuWeight = try container.decodeIfPresent(Int.self, forKey: .cpuWeight)
        memoryMax = try container.decodeIfPresent(Int64.self, forKey: .memoryMax)
        ioWeight = try container.decodeIfPresent(Int.self, forKey: .ioWeight)
        tasksMax = try container.decodeIfPresent(Int.self, forKey: .tasksMax)
        unit = try container.decodeIfPresent(String.self, forKey: .unit)
    }

    /// An ISO-8601 time (fractional seconds allowed).
    private static func date(_ container: StrictDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Date? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        if let date = WireJSON.date(fromISO8601: text) { return date }
        throw container.dataCorrupted(
            forKey: key,
            "must be an ISO-8601 time such as 2026-01-31T22:00:00Z"
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        if !url.isEmpty || WireKinds.type(of: kind)?.takesURL != false { try container.encode(url, forKey: .url) }
        try container.encodeIfPresent(destination, forKey: .destination)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encodeIfPresent(method, forKey: .method)
        try container.encodeIfPresent(headers, forKey: .headers)
        try container.encodeIfPresent(contentType, forKey: .contentType)
        try container.encodeIfPresent(body, forKey: .body)
        try container.encodeIfPresent(bodyBase64, forKey: .bodyBase64)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encodeIfPresent(jobClass, forKey: .jobClass)
        try container.encodeIfPresent(sha256, forKey: .sha256)
        try container.encodeIfPresent(expectedBytes, forKey: .expectedBytes)
        try container.encodeIfPresent(maxBytes, forKey: .maxBytes)
        try container.encodeIfPresent(uploadProtocol, forKey: .uploadProtocol)
        try container.encodeIfPresent(formField, forKey: .formField)
        try container.encodeIfPresent(idempotencyKey, forKey: .idempotencyKey)
        try container.encodeIfPresent(retry, forKey: .retry)
        try container.encodeIfPresent(timeouts, forKey: .timeouts)
        try container.encodeIfPresent(network, forKey: .network)
        try container.encodeIfPresent(requiresAC, forKey: .requiresAC)
        try container.encodeIfPresent(minBattery, forKey: .minBattery)
        try container.encodeIfPresent(requiresIdle, forKey: .requiresIdle)
        try container.encodeIfPresent(notBefore.map(WireJSON.string(fromISO8601:)), forKey: .notBefore)
        try container.encodeIfPresent(deadline.map(WireJSON.string(fromISO8601:)), forKey: .deadline)
        try container.encodeIfPresent(onDeadline, forKey: .onDeadline)
        try container.encodeIfPresent(expectedBytesUp, forKey: .expectedBytesUp)
        try container.encodeIfPresent(periodic, forKey: .periodic)
        try container.encodeIfPresent(onCompleteUnit, forKey: .onCompleteUnit)
        try container.encodeIfPresent(mode, forKey: .mode)
        try container.encodeIfPresent(chunkBytes, forKey: .chunkBytes)
        try container.encodeIfPresent(caFile, forKey: .caFile)
        try container.encodeIfPresent(maxBytesPerSecond, forKey: .maxBytesPerSecond)
        try container.encodeIfPresent(argv, forKey: .argv)
        try container.encodeIfPresent(workingDirectory, forKey: .workingDirectory)
        try container.encodeIfPresent(environment, forKey: .environment)
        try container.encodeIfPresent(retryExitCodes, forKey: .retryExitCodes)
        try container.encodeIfPresent(stopGraceSeconds, forKey: .stopGraceSeconds)
        try container.encodeIfPresent(nice, forKey: .nice)
        try container.encodeIfPresent(outputTailBytes, forKey: .outputTailBytes)
        try container.encodeIfPresent(cpuWeight, forKey: .cpuWeight)
        try container.encodeIfPresent(memoryMax, forKey: .memoryMax)
        try container.encodeIfPresent(ioWeight, forKey: .ioWeight)
        try container.encodeIfPresent(tasksMax, forKey: .tasksMax)
        try container.encodeIfPresent(unit, forKey: .unit)
    }

    /// The domain spec this submission describes, before policy validation.
    public func spec() throws(ValidationError) -> JobSpec {
        JobSpec(
            try payload(),
            label: label,
            jobClass: jobClass ?? JobClassName.default,
            retry: retry,
            timeouts: timeouts,
            constraints: network == nil && requiresAC == nil && minBattery == nil && requiresIdle == nil
                ? nil
                : JobConstraints(
                    network: network ?? .any,
                    requiresAC: requiresAC ?? false,
                    minBattery: minBattery,
                    requiresIdle: requiresIdle ?? false
                ),
            notBefore: notBefore,
            deadline: deadline,
            onDeadline: onDeadline,
            periodic: periodic,
            onCompleteUnit: onCompleteUnit,
            maxBytesPerSecond: maxBytesPerSecond
        )
    }
}

/// The body of `POST /v1/jobs:batch`.
public struct BatchSubmission: Codable, Sendable {
    public var jobs: [JobSubmission]

    public init(jobs: [JobSubmission]) { self.jobs = jobs }

    enum CodingKeys: String, CodingKey, CaseIterable { case jobs }

    public init(from decoder: any Decoder) throws {
        jobs = try StrictKeys.container(decoder, keyedBy: CodingKeys.self).decode([JobSubmission].self, forKey: .jobs)
    }
}
