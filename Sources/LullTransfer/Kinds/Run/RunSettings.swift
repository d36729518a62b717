import LullCore

/// Daemon-wide settings of run jobs (`[run]`), where their logs go, and the run defaults of
/// each class.
public struct RunSettings: Sendable, Equatable {
    /// `[run] max_log_bytes`: the most bytes of output one job's log keeps (its tail).
    public var maxLogBytes: Int64
    /// An attempt without `timeouts.total_seconds` may take this long (`[transfers] total_timeout`).
    public var totalTimeout: Double
    /// `[run] host` as written (`auto` by default).
    public var configuredHost: RunHost = .auto
    /// Where commands run, resolved: `.systemd` or `.process`, never `.auto`.
    public var host: RunHost = .process
    /// `[run] cgroup`: whether the process host starts each command in a cgroup of its own,
    /// where lulld's cgroup is delegated to it.
    public var cgroup: DelegatedCgroups.Setting = .auto
    /// The subtree the process host uses, resolved at start-up; nil: none (or the systemd host).
    public var cgroups: DelegatedCgroups?
    /// `[classes.NAME] nice`, `cpu_weight`, `memory_max`, `io_weight`, `tasks_max`, by class name.
    public var classDefaults: [String: RunClassDefaults] = [:]

    public static let maxLogBytesRange: ClosedRange<Int64> = 0...(1 << 40)

    public init(maxLogBytes: Int64 = 16 << 20, totalTimeout: Double = 7 * 24 * 3600) {
        self.maxLogBytes = maxLogBytes
        self.totalTimeout = totalTimeout
    }

    /// The defaults of `className`'s run jobs (none for a class that sets none).
    public func defaults(of className: String) -> RunClassDefaults {
        classDefaults[className] ?? RunClassDefaults()
    }
}

/// A class's defaults for its run jobs; a job's own value replaces each.
public struct RunClassDefaults: Sendable, Equatable {
    public var nice: Int?
    public var resources: RunResources

    public init(nice: Int? = nil, resources: RunResources = RunResources()) {
        self.nice = nice
        self.resources = resources
    }

    /// The class keys, in the order the docs list them.
    public static let keys = ["nice"] + RunResources.fields
}
