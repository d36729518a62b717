import Foundation
import LullCore

/// A job as the API shows it.
public struct JobView: Codable, Sendable, Equatable {
    public var id: Int64
    public var kind: JobKind
    public var state: JobState
    public var ownerUid: UInt32
    public var url: String
    public var destination: String?
    public var source: String?
    public var method: String?
    public var label: String?
    public var jobClass: String
    public var createdAt: Date
    public var updatedAt: Date
    public var attempts: Int
    /// Times a running attempt was stopped because its conditions lapsed (absent when never),
    /// and the latest reason's code.
    public var stops: Int?
    public var lastStopReason: WaitingReason.Code?
    public var progress: ProgressView?
    /// run: what the command's processes use now, while it runs (or is frozen).
    public var usage: UsageView?
    public var result: ResultView?
    public var error: FailureView?
    public var sha256: String?
    public var expectedBytes: Int64?
    public var maxBytes: Int64?
    /// fetch: the permission bits the file gets, as given or the default ("0644"); absent for a
    /// job stored before the field existed (its file gets the daemon's umask).
    public var mode: String?
    public var uploadProtocol: UploadProtocol?
    /// upload with tus: the job's own most bytes per PATCH.
    public var chunkBytes: Int64?
    /// The extra certificate authorities the job trusts.
    public var caFile: String?
    /// The job's own retry and timeout settings, only the keys it gave.
    public var retry: RetrySettings?
    public var timeouts: TimeoutSettings?
    /// The job's own bandwidth limit (its class's and the daemon's apply too).
    public var maxBytesPerSecond: Int64?
    /// When a job waiting out a retry backoff is tried again.
    public var retryAt: Date?
    /// For a queued job: every condition that holds it now (empty when it is about to start).
    public var waitingFor: [WaitingReasonView]?
    /// The job's own conditions, stricter than its class's: only those it set (`network` other
    /// than `any`, `requires_ac` when true), so an absent key means "as the class allows".
    public var network: JobConstraints.Network?
    public var requiresAC: Bool?
    public var minBattery: Double?
    /// True when the job waits for an idle machine; absent otherwise.
    public var requiresIdle: Bool?
    public var notBefore: Date?
    public var deadline: Date?
    /// With a deadline only: what happens then (`run` when the submission did not say).
    public var onDeadline: DeadlineAction?
    /// A recurring job's schedule, and the period this occurrence was scheduled with.
    public var periodic: PeriodicSchedule?
    public var periodSeconds: Double?
    /// The systemd unit started when the job ends.
    public var onCompleteUnit: String?
    /// run: the program and its arguments, its directory (absent: the owner's home), the
    /// variables it adds (the owner's own, so shown with their values), the exit statuses it
    /// retries, its stop grace and how much output its result keeps.
    public var argv: [String]?
    public var workingDirectory: String?
    public var environment: [String: String]?
    public var retryExitCodes: [Int]?
    public var stopGraceSeconds: Double?
    public var nice: Int?
    public var outputTailBytes: Int?
    /// run: the job's own resource controls (its class's defaults are not shown here).
    public var cpuWeight: Int?
    public var memoryMax: Int64?
    public var ioWeight: Int?
    public var tasksMax: Int?
    public var unit: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, state
        case ownerUid = "owner_uid"
        case url, destination, source, method, label
        case jobClass = "class"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case attempts, stops
        case lastStopReason = "last_stop_reason"
        case progress, usage, result, error, sha256
        case expectedBytes = "expected_bytes"
        case maxBytes = "max_bytes"
        case mode
        case uploadProtocol = "protocol"
        case chunkBytes = "chunk_bytes"
        case caFile = "ca_file"
        case retry, timeouts
        case maxBytesPerSecond = "max_bytes_per_second"
        case retryAt = "retry_at"
        case waitingFor = "waiting_for"
        case network
        case requiresAC = "requires_ac"
        case minBattery = "min_battery"
        case requiresIdle = "requires_idle"
        case notBefore = "not_before"
        case deadline
        case onDeadline = "on_deadline"
        case periodic
        case periodSeconds = "period_seconds"
        case onCompleteUnit = "on_complete_unit"
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

    public init(_ job: Job, waitingFor: [WaitingReason]? = nil) {
        self.waitingFor = waitingFor.map { $0.map(WaitingReasonView.init) }
        id = job.id.rawValue
        kind = job.spec.kind
        state = job.state
        ownerUid = job.owner.rawValue
        url = ""
        label = job.spec.label
        jobClass = job.spec.jobClass
        createdAt = job.createdAt
        updatedAt = job.updatedAt
        attempts = job.attempts
        stops = job.stops == 0 ? nil : job.stops
        lastStopReason = job.lastStop
        progress = job.progress.map(ProgressView.init)
        result = job.result.map(ResultView.init)
        error = job.failure.map(FailureView.init)
        retry = job.spec.retry
        timeouts = job.spec.timeouts
        maxBytesPerSecond = job.spec.maxBytesPerSecond
        retryAt = job.state == .queued ? job.retryAt : nil
        let constraints = job.spec.constraints ?? .none
        network = constraints.network == .any ? nil : constraints.network
        requiresAC = constraints.requiresAC ? true : nil
        minBattery = constraints.minBattery
        requiresIdle = constraints.requiresIdle ? true : nil
        notBefore = job.spec.notBefore
        deadline = job.spec.deadline
        // The default the scheduler applies, so the view says what will happen.
        onDeadline = job.spec.deadline == nil ? nil : job.spec.onDeadline ?? .default
        periodic = job.spec.periodic
        periodSeconds = job.spec.periodic.map { job.spec.periodInterval ?? $0.every }
        onCompleteUnit = job.spec.onCompleteUnit
        describe(job.spec.payload)
    }
}

public struct ProgressView: Codable, Sendable, Equatable {
    public var bytesDone: Int64
    public var bytesTotal: Int64?
    public var bytesPerSecond: Double?
    public var etaSeconds: Double?

    enum CodingKeys: String, CodingKey {
        case bytesDone = "bytes_done"
        case bytesTotal = "bytes_total"
        case bytesPerSecond = "bytes_per_second"
        case etaSeconds = "eta_seconds"
    }

    public init(_ progress: TransferProgress) {
        bytesDone = progress.bytesDone
        bytesTotal = progress.bytesTotal
        bytesPerSecond = progress.bytesPerSecond.map { $0.rounded() }
        etaSeconds = progress.secondsRemaining.map { $0.rounded() }
    }

    /// How much is done, from 0 to 1; nil while the total is unknown. More bytes than the
    /// announced total (a server that sends more than it said) reads as done, not past it.
    public var fraction: Double? {
        guard let total = bytesTotal, total > 0 else { return nil }
        return min(1, max(0, Double(bytesDone) / Double(total)))
    }
}

public struct ResultView: Codable, Sendable, Equatable {
    public var httpStatus: Int?
    public var bytes: Int64?
    public var sha256: String?
    public var path: String?
    public var notModified: Bool?
    public var etag: String?
    public var lastModified: String?
    public var responseHeaders: [String: String]?
    public var responseBody: String?
    public var bytesTransferred: Int64?
    public var uploadURL: String?
    public var accounting: AccountingView?
    /// run: the exit status, or the signal that ended the program; the last of its output; the
    /// CPU seconds (user + system), peak resident bytes and storage bytes it used.
    public var exitCode: Int?
    public var signal: Int?
    public var outputTail: String?
    public var cpuSeconds: Double?
    public var memoryPeakBytes: Int64?
    public var ioReadBytes: Int64?
    public var ioWriteBytes: Int64?
    /// run: the systemd unit the command ran in; absent when lulld started it itself.
    public var unit: String?
    /// run: the cgroup lulld started the command in; absent when it had none of its own.
    public var cgroup: String?

    enum CodingKeys: String, CodingKey {
        case httpStatus = "http_status"
        case bytes, sha256, path
        case notModified = "not_modified"
        case etag
        case lastModified = "last_modified"
        case responseHeaders = "response_headers"
        case responseBody = "response_body"
        case bytesTransferred = "bytes_transferred"
        case uploadURL = "upload_url"
        case accounting
        case exitCode = "exit_code"
        case signal
        case outputTail = "output_tail"
        case cpuSeconds = "cpu_seconds"
        case memoryPeakBytes = "memory_peak_bytes"
        case ioReadBytes = "io_read_bytes"
        case ioWriteBytes = "io_write_bytes"
        case unit, cgroup
    }

    public init(_ result: JobResult) {
        httpStatus = result.httpStatus
        bytes = result.bytes
        sha256 = result.sha256
        path = result.path
        notModified = result.notModified
        etag = result.etag
        lastModified = result.lastModified
        responseHeaders = result.responseHeaders
        responseBody = result.responseBody
        bytesTransferred = result.bytesTransferred
        uploadURL = result.uploadURL
        accounting = result.accounting.map(AccountingView.init)
        exitCode = result.exitCode
        signal = result.signal
        outputTail = result.outputTail
        cpuSeconds = result.cpuSeconds
        memoryPeakBytes = result.memoryPeakBytes
        ioReadBytes = result.ioReadBytes
        ioWriteBytes = result.ioWriteBytes
        unit = result.unit
        cgroup = result.cgroup
    }
}

public struct FailureView: Codable, Sendable, Equatable {
    public var code: String
    public var message: String
    public var retryable: Bool
    public var retryAfterSeconds: Double?

    enum CodingKeys: String, CodingKey {
        case code, message, retryable
        case retryAfterSeconds = "retry_after_seconds"
    }

    public init(_ failure: JobFailure) {
        code = failure.code
        message = failure.message
        retryable = failure.retryable
        retryAfterSeconds = failure.retryAfter
    }
}

/// One page of `GET /v1/jobs`. `nextAfter` is the cursor for the next page; it is set whenever
/// the page is full, so a full last page is followed by one empty page.
public struct JobListView: Codable, Sendable, Equatable {
    public var jobs: [JobView]
    public var nextAfter: Int64?

    enum CodingKeys: String, CodingKey {
        case jobs
        case nextAfter = "next_after"
    }

    public init(jobs: [JobView], nextAfter: Int64?) {
        self.jobs = jobs
        self.nextAfter = nextAfter
    }
}

/// The answer to `POST /v1/jobs:batch`: the accepted jobs, in request order.
public struct BatchView: Codable, Sendable, Equatable {
    public var jobs: [JobView]
    public init(jobs: [JobView]) { self.jobs = jobs }
}
