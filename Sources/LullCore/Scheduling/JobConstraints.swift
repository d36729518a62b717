/// What a job itself asks of the machine before it may start. A job can only make its class
/// policy stricter, never looser (see `EffectiveConstraints`).
public struct JobConstraints: Sendable, Hashable, Codable {
    public enum Network: String, Sendable, Hashable, CaseIterable, Codable {
        /// Whatever the class allows.
        case any
        /// Neither a metered nor a cellular link.
        case unmetered
        /// Not a cellular link (a metered Wi-Fi hotspot is fine if the class allows metered).
        case notCellular = "not_cellular"
    }

    public var network: Network
    public var requiresAC: Bool
    /// Least battery charge (0–100, `minBatteryRange`) when running on battery.
    public var minBattery: Double?

    /// What `minBattery` may be: a percentage, not a fraction. lullctl checks it as it parses,
    /// the daemon again when it validates a spec.
    public static let minBatteryRange: ClosedRange<Double> = 0...100

    public init(network: Network = .any, requiresAC: Bool = false, minBattery: Double? = nil) {
        self.network = network
        self.requiresAC = requiresAC
        self.minBattery = minBattery
    }

    public static let none = JobConstraints()

    /// The constraints as the scheduler applies them: `minBattery` rounded up to a whole
    /// percent. Jobs are grouped by their constraints and a decision looks at every group, so
    /// fractions would let one client make a group per job. The cost is at most one percent
    /// stricter: 30.2 holds a job at a charge of 30.5 (UPower and several batteries give
    /// fractions; one battery's sysfs `capacity` is a whole percent, where nothing changes).
    public var inWholePercent: JobConstraints {
        var rounded = self
        rounded.minBattery = minBattery?.rounded(.up)
        return rounded
    }
}

/// What happens to a job still waiting when its deadline comes.
public enum DeadlineAction: String, Sendable, Hashable, CaseIterable, Codable {
    /// Start despite discretionary constraints (power, metered/cellular, pressure, window, coalescing);
    /// never despite being offline or paused, and still within every concurrency limit.
    case run
    /// Give up: the decision reports the job as expired.
    case expire

    /// What a deadline does when the submission does not say.
    public static let `default` = DeadlineAction.run
}
