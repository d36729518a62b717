import Foundation
import LullCore

/// The answer to `GET /v1/status`.
public struct StatusView: Codable, Sendable {
    public var version: String
    public var pid: Int32
    public var startedAt: Date
    public var uptimeSeconds: Double
    public var socket: String
    public var stateDir: String
    /// The state directory's permission bits (`0700`); anything wider lets others read the
    /// store. Optional: older daemons do not send it.
    public var stateDirMode: String?
    /// Jobs per state, over the owners the caller may see.
    public var jobs: [String: Int]
    public var running: Int
    public var limits: LimitsView
    public var process: ProcessView
    /// The machine as the scheduler sees it now.
    public var world: WorldView?
    /// The latest look at pressure, CPU and memory (taken now when the last one is stale).
    public var sample: SampleView?
    /// The newest event sequence number; following `GET /v1/events` from here sees only what
    /// happens next. Optional: older daemons do not send it.
    public var lastEventSeq: Int64?

    enum CodingKeys: String, CodingKey {
        case version, pid
        case startedAt = "started_at"
        case uptimeSeconds = "uptime_seconds"
        case socket
        case stateDir = "state_dir"
        case stateDirMode = "state_dir_mode"
        case jobs, running, limits, process, world, sample
        case lastEventSeq = "last_event_seq"
    }

    public init(
        version: String,
        pid: Int32,
        startedAt: Date,
        uptimeSeconds: Double,
        socket: String,
        stateDir: String,
        jobs: [String: Int],
        running: Int,
        limits: LimitsView,
        process: ProcessView,
        world: WorldView? = nil,
        sample: SampleView? = nil,
        lastEventSeq: Int64? = nil,
        stateDirMode: String? = nil
    ) {
        self.stateDirMode = stateDirMode
        self.version = version
        self.pid = pid
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.socket = socket
        self.stateDir = stateDir
        self.jobs = jobs
        self.running = running
        self.limits = limits
        self.process = process
        self.world = world
        self.sample = sample
        self.lastEventSeq = lastEventSeq
    }
}

public struct LimitsView: Codable, Sendable {
    public var maxConcurrent: Int
    public var maxRequestBytes: Int
    public var maxPushBodyBytes: Int
    public var maxBatchJobs: Int
    public var maxQueuedPerOwner: Int?

    enum CodingKeys: String, CodingKey {
        case maxConcurrent = "max_concurrent"
        case maxRequestBytes = "max_request_bytes"
        case maxPushBodyBytes = "max_push_body_bytes"
        case maxBatchJobs = "max_batch_jobs"
        case maxQueuedPerOwner = "max_queued_per_owner"
    }

    public init(
        maxConcurrent: Int,
        maxRequestBytes: Int,
        maxPushBodyBytes: Int,
        maxBatchJobs: Int,
        maxQueuedPerOwner: Int? = nil
    ) {
        self.maxQueuedPerOwner = maxQueuedPerOwner
        self.maxConcurrent = maxConcurrent
        self.maxRequestBytes = maxRequestBytes
        self.maxPushBodyBytes = maxPushBodyBytes
        self.maxBatchJobs = maxBatchJobs
    }
}

/// The daemon's own resource use.
public struct ProcessView: Codable, Sendable {
    public var rssBytes: Int64
    public var cpuSeconds: Double

    enum CodingKeys: String, CodingKey {
        case rssBytes = "rss_bytes"
        case cpuSeconds = "cpu_seconds"
    }

    public init(rssBytes: Int64, cpuSeconds: Double) {
        self.rssBytes = rssBytes
        self.cpuSeconds = cpuSeconds
    }
}
