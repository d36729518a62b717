/// Performs one attempt of a job's network work. Implementations stream, honour task
/// cancellation promptly (pause, cancel and shutdown cancel the task), and report failures as
/// `JobFailure` so the dispatcher can tell retryable from permanent ones.
public protocol TransferEngine: Sendable {
    func run(_ job: Job, context: TransferContext) async throws -> JobResult
    /// Removes whatever an attempt kept for resuming, once the job will never run again
    /// (failed for good or cancelled).
    func discardResumeData(of job: Job) async
}

extension TransferEngine {
    public func discardResumeData(of job: Job) async {}
}

/// What the dispatcher gives an engine besides the job.
public struct TransferContext: Sendable {
    /// Called as bytes move; cheap, throttled by the receiver.
    public var progress: @Sendable (TransferProgress) -> Void
    /// Durably records how to resume; returns once stored.
    public var checkpoint: @Sendable (ResumeState) async -> Void
    /// Reads the validators of the last successful fetch of the same URL into the same file: a
    /// store read, so a fetch asks only when the file is there to be kept.
    public var validators: @Sendable () async -> FetchValidators?
    /// The bandwidth limits over the job; nil when nothing limits it.
    public var throttle: (any TransferThrottle)?

    public init(
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        checkpoint: @escaping @Sendable (ResumeState) async -> Void = { _ in },
        validators: @escaping @Sendable () async -> FetchValidators? = { nil },
        throttle: (any TransferThrottle)? = nil
    ) {
        self.progress = progress
        self.checkpoint = checkpoint
        self.validators = validators
        self.throttle = throttle
    }
}

/// Paces a transfer to the bandwidth limits over it. The transfer asks before it moves the next
/// bytes (a download before it reads on, an upload before it writes on), so a limit holds the
/// stream back where it is: nothing piles up in memory and nothing spins.
public protocol TransferThrottle: Sendable {
    /// Returns once `bytes` may move under every limit over the transfer. Calls `waiting` now
    /// and then while it holds them back, so an idle watchdog can tell paced from stalled.
    /// Throws `CancellationError` when the task is cancelled meanwhile.
    func admit(_ bytes: Int, waiting: () -> Void) async throws
}

/// An engine whose attempts can be held where they are and let go on: a pause then keeps the
/// attempt instead of cancelling it (a run job's process group gets SIGSTOP, then SIGCONT).
public protocol FreezableEngine: TransferEngine {
    /// Holds the job's running attempt; returns once it is held, false when it could not be
    /// (not started, ended, or the service manager refused).
    func freeze(_ id: JobID) async -> Bool
    /// Lets a held attempt go on; returns once it goes on, false when there is nothing held.
    func thaw(_ id: JobID) async -> Bool
    /// Whether this engine's attempts are processes, which a suspend of the machine holds where
    /// they are as it does every process (false for a wrapper whose inner engine's are not).
    var attemptsAreProcesses: Bool { get }
}

extension FreezableEngine {
    public var attemptsAreProcesses: Bool { true }
}

/// What a running command uses now: the CPU time its processes have had, the share of a CPU
/// they had since the last reading, their resident memory, and the storage I/O they caused.
/// Times and bytes are running totals over the attempt; the dispatcher derives the share.
public struct CommandUsage: Sendable, Equatable, Codable {
    public var cpuSeconds: Double
    /// Percent of one CPU since the reading before; nil when there was none.
    public var cpuPercent: Double?
    public var memoryBytes: Int64
    /// Bytes read from and written to storage; nil where the kernel does not count them.
    public var ioReadBytes: Int64?
    public var ioWriteBytes: Int64?

    public init(
        cpuSeconds: Double,
        cpuPercent: Double?,
        memoryBytes: Int64,
        ioReadBytes: Int64? = nil,
        ioWriteBytes: Int64? = nil
    ) {
        self.cpuSeconds = cpuSeconds
        self.cpuPercent = cpuPercent
        self.memoryBytes = memoryBytes
        self.ioReadBytes = ioReadBytes
        self.ioWriteBytes = ioWriteBytes
    }
}

/// An engine that can say what its running attempts use (a run job's process group or unit).
/// The seam a host (processes, systemd units) gives its readings through.
public protocol UsageReportingEngine: TransferEngine {
    /// One attempt's usage now; nil when it runs nothing.
    func usage(of id: JobID) -> CommandUsage?
    /// Every running attempt's usage, read together: the dispatcher calls it once per progress
    /// interval, off the event loops, so one pass over the system serves all jobs.
    func usages() -> [JobID: CommandUsage]
    /// Whether this engine's attempts have usage to sample (false for a wrapper whose inner
    /// engine has none).
    var reportsUsage: Bool { get }
}

extension UsageReportingEngine {
    public var reportsUsage: Bool { true }
}
