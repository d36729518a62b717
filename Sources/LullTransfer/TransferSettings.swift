import LullCore
import NIOCore

/// Daemon-wide transfer defaults; a job's own `timeouts` override the timeouts.
public struct TransferSettings: Sendable, Equatable {
    public var connectTimeout: Double
    /// No bytes for this long fails the attempt (retryable).
    public var idleTimeout: Double
    /// The whole attempt may take this long.
    public var totalTimeout: Double
    /// fetch: largest download when the job names no `max_bytes`.
    public var maxFetchBytes: Int64
    /// push and upload: how much of the response body is kept in the result.
    public var maxResponseBodyBytes: Int
    /// How often a download's progress is made durable for resumption.
    public var checkpointInterval: Double
    /// Least time between two progress events of one job.
    public var progressInterval: Double
    /// tus: the most bytes one `PATCH` carries when the job names no `chunk_bytes`.
    public var tusChunkBytes: Int64 = 64 << 20
    /// `[classes.NAME] ca_file`: a PEM file of certificate authorities that jobs of the class
    /// trust besides the system's, read by the daemon at each attempt.
    public var classCAFiles: [String: String] = [:]
    /// `[classes.NAME] dscp` and `tcp_congestion`: how the class's connections yield to other traffic.
    public var classTraffic: [String: TrafficMarking] = [:]

    public init(
        connectTimeout: Double = 15,
        idleTimeout: Double = 60,
        totalTimeout: Double = 7 * 24 * 3600,
        maxFetchBytes: Int64 = 64 << 30,
        maxResponseBodyBytes: Int = 64 << 10,
        checkpointInterval: Double = 1,
        progressInterval: Double = 1
    ) {
        self.progressInterval = progressInterval
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.maxFetchBytes = maxFetchBytes
        self.maxResponseBodyBytes = maxResponseBodyBytes
        self.checkpointInterval = checkpointInterval
    }

    func idle(for job: Job) -> Double { job.spec.timeouts?.idleSeconds ?? idleTimeout }
    func totalSeconds(for job: Job) -> Double { job.spec.timeouts?.totalSeconds ?? totalTimeout }
    func total(for job: Job) -> TimeAmount { .milliseconds(Int64(totalSeconds(for: job) * 1000)) }
    /// The time a request without a body may take to be answered.
    var shortRequest: TimeAmount { .seconds(Int64(connectTimeout + idleTimeout)) }
}
