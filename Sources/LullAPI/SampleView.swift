import Foundation

/// `GET /v1/samples`: the sampler's recent history, oldest first.
public struct SamplesView: Codable, Sendable, Equatable {
    /// Seconds between samples while someone watches (the request itself counts as watching).
    public var intervalSeconds: Double
    public var samples: [SampleView]

    enum CodingKeys: String, CodingKey {
        case intervalSeconds = "interval_seconds"
        case samples
    }

    public init(intervalSeconds: Double, samples: [SampleView]) {
        self.intervalSeconds = intervalSeconds
        self.samples = samples
    }
}

/// One look at the machine and at the daemon itself. Pressures are PSI `some avg10` (0–100);
/// a field is left out where this kernel does not provide it.
public struct SampleView: Codable, Sendable, Equatable {
    public var time: Date
    /// Busy share of all CPUs (0–1) since the previous sample.
    public var cpuUtilisation: Double?
    public var cpuPressure: Double?
    public var memoryPressure: Double?
    public var ioPressure: Double?
    public var memoryAvailableBytes: Int64?
    public var memoryTotalBytes: Int64?
    public var load1m: Double?
    public var daemonCPUSeconds: Double
    public var daemonRSSBytes: Int64

    enum CodingKeys: String, CodingKey {
        case time
        case cpuUtilisation = "cpu_utilisation"
        case cpuPressure = "cpu_pressure"
        case memoryPressure = "memory_pressure"
        case ioPressure = "io_pressure"
        case memoryAvailableBytes = "memory_available_bytes"
        case memoryTotalBytes = "memory_total_bytes"
        case load1m = "load_1m"
        case daemonCPUSeconds = "daemon_cpu_seconds"
        case daemonRSSBytes = "daemon_rss_bytes"
    }

    public init(
        time: Date,
        cpuUtilisation: Double?,
        cpuPressure: Double?,
        memoryPressure: Double?,
        ioPressure: Double?,
        memoryAvailableBytes: Int64?,
        memoryTotalBytes: Int64?,
        load1m: Double?,
        daemonCPUSeconds: Double,
        daemonRSSBytes: Int64
    ) {
        self.time = time
        self.cpuUtilisation = cpuUtilisation
        self.cpuPressure = cpuPressure
        self.memoryPressure = memoryPressure
        self.ioPressure = ioPressure
        self.memoryAvailableBytes = memoryAvailableBytes
        self.memoryTotalBytes = memoryTotalBytes
        self.load1m = load1m
        self.daemonCPUSeconds = daemonCPUSeconds
        self.daemonRSSBytes = daemonRSSBytes
    }
}
