/// The conditions a job actually waits for: its class policy AND its own constraints, the
/// stricter one winning each setting, with where each binding value came from.
public struct EffectiveConstraints: Sendable, Hashable {
    /// Who imposed a setting: the class (with the config origin, if any) or the job itself.
    public enum Source: Sendable, Hashable {
        case classPolicy(ConfigOrigin?)
        case job
    }

    public var requiresAC: Bool
    public var requiresACSource: Source
    public var requiresIdle: Bool
    public var requiresIdleSource: Source
    public var minBattery: Double?
    public var minBatterySource: Source
    public var allowMetered: Bool
    public var allowMeteredSource: Source
    public var allowCellular: Bool
    public var allowCellularSource: Source
    /// Whether the job waits for the network (all but `network: "none"`).
    public var needsNetwork: Bool
    public var maxCPUPressure: Double?
    public var maxMemoryPressure: Double?
    public var window: DailyWindow?

    public init(classPolicy cls: JobClassPolicy, job: JobConstraints) {
        func origin(_ setting: JobClassPolicy.Setting) -> Source { .classPolicy(cls.origin(of: setting)) }

        requiresAC = cls.requiresAC || job.requiresAC
        requiresACSource = cls.requiresAC || !job.requiresAC ? origin(.requiresAC) : .job
        requiresIdle = cls.requiresIdle || job.requiresIdle
        requiresIdleSource = cls.requiresIdle || !job.requiresIdle ? origin(.requiresIdle) : .job

        switch (cls.minBattery, job.minBattery) {
        case let (c?, j?) where j > c:
            minBattery = j
            minBatterySource = .job
        case let (c?, _):
            minBattery = c
            minBatterySource = origin(.minBattery)
        case let (nil, j):
            minBattery = j
            minBatterySource = j == nil ? origin(.minBattery) : .job
        }

        let jobForbidsMetered = job.network == .unmetered
        allowMetered = cls.allowMetered && !jobForbidsMetered
        allowMeteredSource = !cls.allowMetered || !jobForbidsMetered ? origin(.allowMetered) : .job

        let jobForbidsCellular = job.network == .unmetered || job.network == .notCellular
        allowCellular = cls.allowCellular && !jobForbidsCellular
        allowCellularSource = !cls.allowCellular || !jobForbidsCellular ? origin(.allowCellular) : .job

        // A job that uses no network is held by no link, whatever its class says of links.
        needsNetwork = job.network != .notNeeded
        if !needsNetwork {
            (allowMetered, allowMeteredSource, allowCellular, allowCellularSource) = (true, .job, true, .job)
        }

        maxCPUPressure = cls.maxCPUPressure
        maxMemoryPressure = cls.maxMemoryPressure
        window = cls.window
    }

    /// Whether a link with these properties is allowed (the connectivity itself aside).
    public func allowsLink(metered: Bool, cellular: Bool) -> Bool {
        (!metered || allowMetered) && (!cellular || allowCellular)
    }
}
