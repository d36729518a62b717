/// An admin-defined priority class: its share of slots, its limits and the conditions every job
/// of the class waits for. Jobs may add stricter constraints of their own.
public struct JobClassPolicy: Sendable, Equatable {
    /// A setting of a class, named by its config key; the key of `origins`.
    public enum Setting: String, Sendable, Hashable, CaseIterable {
        case maxConcurrent = "max_concurrent"
        case weight
        case requiresAC = "requires_ac"
        case requiresIdle = "requires_idle"
        case minBattery = "min_battery"
        case allowMetered = "allow_metered"
        case allowCellular = "allow_cellular"
        case maxCPUPressure = "max_cpu_pressure"
        case maxMemoryPressure = "max_memory_pressure"
        case window
        case maxBytesPerSecond = "max_bytes_per_second"
        case bandwidth
        case maxAttempts = "max_attempts"
        case backoffBase = "backoff_base"
        case backoffCap = "backoff_cap"
        case maxMeteredJobBytes = "max_metered_job_bytes"
        case meteredBytesPerDay = "metered_bytes_per_day"
        case coalesce
        case onConditionsLost = "on_conditions_lost"
        case finishWithin = "finish_within"
        case stopOnPressure = "stop_on_pressure"
    }

    /// What becomes of a running job whose conditions no longer hold.
    public enum ConditionsLostAction: String, Sendable, Equatable, CaseIterable {
        /// Stopped and requeued with its resume point; it resumes once they hold again.
        case stop
        /// Left to finish: for work someone waits on, where stopping costs more than it saves.
        case finish
    }

    public var name: String
    /// Jobs of this class running at once.
    public var maxConcurrent: Int
    /// Share of slots relative to the other classes (weighted fair share), at least 1.
    public var weight: Int
    /// Run only on AC (mains or UPS on line).
    public var requiresAC: Bool
    /// Run only while nobody uses the machine (logind idle for `[sensors] idle_after`).
    public var requiresIdle = false
    /// On battery, run only at or above this charge (0–100); ignored on AC.
    public var minBattery: Double?
    public var allowMetered: Bool
    public var allowCellular: Bool
    /// Hold new starts while CPU pressure (PSI some avg10, 0–100) is above this.
    public var maxCPUPressure: Double?
    /// Hold new starts while memory pressure (PSI some avg10, 0–100) is above this.
    public var maxMemoryPressure: Double?
    /// Daily local-time window outside which the class does not start jobs.
    public var window: DailyWindow?
    /// Default retry settings of the class's jobs.
    public var retry: RetryPolicy
    /// On a metered link, a job expecting more bytes (down + up) than this waits for an unmetered one.
    public var maxMeteredJobBytes: Int64?
    /// Metered bytes the class may use per local day; past it, its jobs wait (`quota`) on metered links.
    public var meteredBytesPerDay: Int64?
    /// Jobs of this class that have a deadline are deferrable: on a metered or cellular link they
    /// wait to ride along with other traffic instead of waking the link alone (until shortly before
    /// their deadline).
    public var coalesce: Bool
    public var onConditionsLost: ConditionsLostAction
    /// A running job expected to end within this many seconds (its rate and size) is not stopped.
    public var finishWithin: Double
    /// Whether pressure above the class's limits stops running jobs, not only holds queued ones.
    public var stopOnPressure: Bool
    /// `max_bytes_per_second` and `[[classes.NAME.bandwidth]]`: the bytes per second the class's
    /// running jobs together may move, down and up.
    public var bandwidth = BandwidthSchedule.none
    /// Where each setting was configured, for explanations; absent means the built-in default.
    public var origins: [Setting: ConfigOrigin]

    public init(
        name: String,
        maxConcurrent: Int,
        weight: Int,
        requiresAC: Bool = false,
        minBattery: Double? = nil,
        allowMetered: Bool = true,
        allowCellular: Bool = true,
        maxCPUPressure: Double? = nil,
        maxMemoryPressure: Double? = nil,
        window: DailyWindow? = nil,
        retry: RetryPolicy = RetryPolicy(maxAttempts: 5, backoffBase: 30, backoffCap: 5 * 3600),
        maxMeteredJobBytes: Int64? = nil,
        meteredBytesPerDay: Int64? = nil,
        coalesce: Bool = false,
        onConditionsLost: ConditionsLostAction = .stop,
        finishWithin: Double = 10,
        stopOnPressure: Bool = false,
        origins: [Setting: ConfigOrigin] = [:]
    ) {
        self.name = name
        self.maxConcurrent = maxConcurrent
        self.weight = max(1, weight)
        self.requiresAC = requiresAC
        self.minBattery = minBattery
        self.allowMetered = allowMetered
        self.allowCellular = allowCellular
        self.maxCPUPressure = maxCPUPressure
        self.maxMemoryPressure = maxMemoryPressure
        self.window = window
        self.retry = retry
        self.maxMeteredJobBytes = maxMeteredJobBytes
        self.meteredBytesPerDay = meteredBytesPerDay
        self.coalesce = coalesce
        self.onConditionsLost = onConditionsLost
        self.finishWithin = finishWithin
        self.stopOnPressure = stopOnPressure
        self.origins = origins
    }

    public func origin(of setting: Setting) -> ConfigOrigin? { origins[setting] }
}

extension JobClassPolicy {
    /// Latency-sensitive work a person waits for: any power, any link, the biggest share.
    public static let interactive = JobClassPolicy(
        name: "interactive",
        maxConcurrent: 4,
        weight: 8,
        retry: RetryPolicy(maxAttempts: 5, backoffBase: 1, backoffCap: 60),
        onConditionsLost: .finish
    )

    /// Ordinary work: any power, any link.
    public static let `default` = JobClassPolicy(
        name: "default",
        maxConcurrent: 4,
        weight: 4,
        retry: RetryPolicy(maxAttempts: 5, backoffBase: 10, backoffCap: 3600),
        onConditionsLost: .finish
    )

    /// Useful but not urgent (the macOS utility floor): ≥ 10% battery or AC, moderate pressure.
    public static let utility = JobClassPolicy(
        name: "utility",
        maxConcurrent: 2,
        weight: 2,
        minBattery: 10,
        maxCPUPressure: 50,
        maxMemoryPressure: 30,
        retry: RetryPolicy(maxAttempts: 8, backoffBase: 30, backoffCap: 5 * 3600),
        coalesce: true
    )

    /// Bulk and prefetch: unmetered links only, ≥ 30% battery or AC, low pressure.
    public static let background = JobClassPolicy(
        name: "background",
        maxConcurrent: 2,
        weight: 1,
        minBattery: 30,
        allowMetered: false,
        allowCellular: false,
        maxCPUPressure: 25,
        maxMemoryPressure: 15,
        retry: RetryPolicy(maxAttempts: 10, backoffBase: 30, backoffCap: 5 * 3600),
        coalesce: true
    )

    /// Housekeeping: AC, unmetered, nearly idle machine, 01:00–05:00 local.
    public static let maintenance = JobClassPolicy(
        name: "maintenance",
        maxConcurrent: 1,
        weight: 1,
        requiresAC: true,
        allowMetered: false,
        allowCellular: false,
        maxCPUPressure: 10,
        maxMemoryPressure: 10,
        window: DailyWindow(fromHour: 1, toHour: 5),
        retry: RetryPolicy(maxAttempts: 10, backoffBase: 60, backoffCap: 5 * 3600),
        coalesce: true
    )
}
