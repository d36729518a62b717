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
    /// How to continue an interrupted transfer.
    public var resume: ResumeState?
    /// A queued job waiting out a retry backoff starts no earlier than this.
    public var retryAt: Date?
    /// Times a running attempt was stopped because its conditions lapsed (not failures), and
    /// the latest reason; the hold-down before its next start grows with the count.
    public var stops: Int
    public var lastStop: WaitingReason.Code?

    public init(
        id: JobID,
        owner: OwnerID,
        spec: JobSpec,
        state: JobState = .queued,
        createdAt: Date,
        updatedAt: Date? = nil,
        attempts: Int = 0,
        progress: TransferProgress? = nil,
        result: JobResult? = nil,
        failure: JobFailure? = nil,
        resume: ResumeState? = nil,
        retryAt: Date? = nil,
        stops: Int = 0,
        lastStop: WaitingReason.Code? = nil
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
        self.resume = resume
        self.retryAt = retryAt
        self.stops = stops
        self.lastStop = lastStop
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

/// Bytes moved so far by a running or interrupted transfer, with the recent rate.
public struct TransferProgress: Sendable, Equatable, Codable {
    public var bytesDone: Int64
    public var bytesTotal: Int64?
    /// Bytes per second over the last reporting interval.
    public var bytesPerSecond: Double?

    public init(bytesDone: Int64, bytesTotal: Int64?, bytesPerSecond: Double? = nil) {
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.bytesPerSecond = bytesPerSecond
    }

    /// Seconds left at the current rate, when both the total and a rate are known.
    public var secondsRemaining: Double? {
        guard let total = bytesTotal, let rate = bytesPerSecond, rate > 0 else { return nil }
        return Double(max(total - bytesDone, 0)) / rate
    }
}

/// What a finished job produced.
public struct JobResult: Sendable, Equatable, Codable {
    public var httpStatus: Int?
    public var bytes: Int64?
    public var sha256: String?
    /// fetch: the file now at the destination.
    public var path: String?
    /// fetch: the server answered 304, the file at the destination is current ("no new data").
    public var notModified: Bool?
    /// fetch: validators for the next conditional GET.
    public var etag: String?
    public var lastModified: String?
    /// fetch: the identity of the file left at the destination (device, inode, size and
    /// modification time; stored, not shown), which a next conditional GET needs to find there.
    public var file: String?
    /// push and upload: selected response headers and the start of the response body.
    public var responseHeaders: [String: String]?
    public var responseBody: String?
    /// Bytes received over the network in all attempts (fetch) — resumption keeps this close to `bytes`.
    public var bytesTransferred: Int64?
    /// tus: where the upload lives on the server.
    public var uploadURL: String?
    /// What the job cost: bytes per link type, running time, attempts, daemon CPU.
    public var accounting: JobAccounting?
    /// run: how the program ended (its exit status, or the signal that killed it), the last of
    /// its output, and what it used by `wait4`'s rusage (user + system CPU, peak resident memory).
    public var exitCode: Int?
    public var signal: Int?
    public var outputTail: String?
    public var cpuSeconds: Double?
    public var memoryPeakBytes: Int64?
    /// run: bytes the command read from and wrote to storage (not the page cache, not tmpfs);
    /// absent where the kernel does not count them. See `RunExit`.
    public var ioReadBytes: Int64?
    public var ioWriteBytes: Int64?
    /// run: the systemd unit the command ran in (the systemd host); nil when lulld started it.
    public var unit: String?
    /// run: the cgroup lulld started the command in (the process host, where a cgroup v2
    /// subtree is delegated to lulld); nil when it ran in lulld's process groups or in a unit.
    public var cgroup: String?

    public init(
        httpStatus: Int? = nil,
        bytes: Int64? = nil,
        sha256: String? = nil,
        path: String? = nil,
        notModified: Bool? = nil,
        etag: String? = nil,
        lastModified: String? = nil,
        responseHeaders: [String: String]? = nil,
        responseBody: String? = nil,
        bytesTransferred: Int64? = nil,
        uploadURL: String? = nil,
        accounting: JobAccounting? = nil,
        exitCode: Int? = nil,
        signal: Int? = nil,
        outputTail: String? = nil,
        cpuSeconds: Double? = nil,
        memoryPeakBytes: Int64? = nil,
        ioReadBytes: Int64? = nil,
        ioWriteBytes: Int64? = nil,
        unit: String? = nil,
        cgroup: String? = nil,
        file: String? = nil
    ) {
        self.file = file
        self.unit = unit
        self.cgroup = cgroup
        self.httpStatus = httpStatus
        self.bytes = bytes
        self.sha256 = sha256
        self.path = path
        self.notModified = notModified
        self.etag = etag
        self.lastModified = lastModified
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.bytesTransferred = bytesTransferred
        self.uploadURL = uploadURL
        self.accounting = accounting
        self.exitCode = exitCode
        self.signal = signal
        self.outputTail = outputTail
        self.cpuSeconds = cpuSeconds
        self.memoryPeakBytes = memoryPeakBytes
        self.ioReadBytes = ioReadBytes
        self.ioWriteBytes = ioWriteBytes
    }
}

/// Why an attempt failed: a machine-readable code, a human message, and whether trying again may help.
public struct JobFailure: Error, Sendable, Equatable, Codable {
    public var code: String
    public var message: String
    public var retryable: Bool
    /// Seconds the server asked us to wait (`Retry-After`).
    public var retryAfter: Double?
    /// What the failed attempt produced all the same (a run job's exit status and output): the
    /// failed job's result. Not part of the stored failure.
    public var result: JobResult? = nil

    enum CodingKeys: String, CodingKey {
        case code, message, retryable, retryAfter
    }

    public init(
        code: String,
        message: String,
        retryable: Bool,
        retryAfter: Double? = nil,
        result: JobResult? = nil
    ) {
        self.code = code
        self.message = message
        self.retryable = retryable
        self.retryAfter = retryAfter
        self.result = result
    }

    /// The failed job's result: what the attempt produced (a run job's exit status and output,
    /// else nothing) with the job's accounting.
    public func result(with accounting: JobAccounting) -> JobResult {
        var result = self.result ?? JobResult()
        result.accounting = accounting
        return result
    }
}
