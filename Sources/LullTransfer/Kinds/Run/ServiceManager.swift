import LullCore

/// The service manager that runs commands on the systemd host: systemd over sd-bus in the
/// daemon (`SystemdServiceManager`), a fake in tests. The manager owns the processes: it
/// starts them as a unit, stops them (SIGTERM, the grace, SIGKILL), freezes them and reports
/// how the unit ended; lulld only reads the output and decides what the end means.
public protocol ServiceManager: Sendable {
    /// Starts `service` as a transient unit. A unit of the same name left over from a lulld that
    /// crashed is stopped first: the command must not run twice.
    func startTransient(_ service: TransientService) async throws(JobFailure)
    /// Starts an existing unit (a job's `unit`) and keeps its figures until `release`.
    func start(existing unit: String, jobID: JobID) async throws(JobFailure)
    /// Returns once the unit's run has ended (its main process exited and the unit stopped).
    func end(of unit: String) async -> ServiceEnd
    /// Stops the unit: SIGTERM to all its processes, SIGKILL after its stop timeout. Returns
    /// false when the unit had already ended by itself (nothing was stopped).
    @discardableResult
    func stop(_ unit: String) async -> Bool
    /// Freezes (or thaws) every process of the unit; false when the unit runs nothing.
    func freeze(_ unit: String) async -> Bool
    func thaw(_ unit: String) async -> Bool
    /// What the unit's processes use now; nil when it runs none.
    func usage(of unit: String) async -> ServiceUsage?
    /// Lets the manager forget an ended unit (the reference that kept its figures).
    func release(_ unit: String) async
    /// Stops those of `units` (the units of run jobs a crashed lulld left `running`) that still
    /// run, and returns their names: called at start, before any job runs, since no attempt
    /// follows them and lulld kept their time limit.
    func endLeftovers(of units: [String]) async -> [String]
}

/// A command to run as a job's unit (`JobUnitNames`).
public struct TransientService: Sendable {
    public var name: String
    public var jobID: JobID
    public var description: String
    /// Program, words, environment, directory, identity, niceness and resource limits; its
    /// `outputDescriptor` becomes the unit's stdout and stderr.
    public var launch: LaunchRequest
    /// The owner's uid for `User=`; nil on a user manager (the unit runs as that user).
    public var user: UInt32?
    public var stopGraceSeconds: Double

    public init(
        name: String,
        jobID: JobID,
        description: String,
        launch: LaunchRequest,
        user: UInt32?,
        stopGraceSeconds: Double
    ) {
        self.name = name
        self.jobID = jobID
        self.description = description
        self.launch = launch
        self.user = user
        self.stopGraceSeconds = stopGraceSeconds
    }

    /// The slice every job's unit is placed in.
    public static let slice = "lull-jobs.slice"
}

/// How a unit's run ended, and what it used.
public struct ServiceEnd: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case exited(Int)
        case killed(signal: Int)
        /// The kernel killed it at its memory limit.
        case memoryLimit
        /// It ran past its time limit and was stopped (lulld's total timeout of a transient
        /// unit, or an existing unit's own `RuntimeMaxSec=`).
        case timedOut
        /// The manager could not start or follow it; the text says why.
        case failed(String)

    }

    public var outcome: Outcome
    public var usage: ServiceUsage

    public init(outcome: Outcome, usage: ServiceUsage = ServiceUsage()) {
        self.outcome = outcome
        self.usage = usage
    }
}

/// A unit's figures, as the manager accounts them (cgroup-based).
public struct ServiceUsage: Sendable, Equatable {
    public var cpuSeconds: Double?
    public var memoryBytes: Int64?
    public var memoryPeakBytes: Int64?
    public var ioReadBytes: Int64?
    public var ioWriteBytes: Int64?

    public init(
        cpuSeconds: Double? = nil,
        memoryBytes: Int64? = nil,
        memoryPeakBytes: Int64? = nil,
        ioReadBytes: Int64? = nil,
        ioWriteBytes: Int64? = nil
    ) {
        self.cpuSeconds = cpuSeconds
        self.memoryBytes = memoryBytes
        self.memoryPeakBytes = memoryPeakBytes
        self.ioReadBytes = ioReadBytes
        self.ioWriteBytes = ioWriteBytes
    }
}
