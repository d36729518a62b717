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
        /// No network at all: a run job whose command stays on the machine starts offline and on
        /// any link, and losing the network does not stop it. Not for transfers.
        case notNeeded = "none"
    }

    public var network: Network
    public var requiresAC: Bool
    /// Least battery charge (0–100, `minBatteryRange`) when running on battery.
    public var minBattery: Double?
    /// Start only while nobody uses the machine (logind idle for `[sensors] idle_after`).
    public var requiresIdle: Bool

    /// What `minBattery` may be: a percentage, not a fraction. lullctl checks it as it parses,
    /// the daemon again when it validates a spec.
    public static let minBatteryRange: ClosedRange<Double> = 0...100

    public init(
        network: Network = .any,
        requiresAC: Bool = false,
        minBattery: Double? = nil,
        requiresIdle: Bool = false
    ) {
        self.network = network
        self.requiresAC = requiresAC
        self.minBattery = minBattery
        self.requiresIdle = requiresIdle
    }

    enum CodingKeys: String, CodingKey {
        case network, requiresAC, minBattery, requiresIdle
    }

    // `requiresIdle` came later: absent reads as false, and false is not written, so the specs
    // stored before it read back and those without it stay byte for byte as they were.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        network = try container.decode(Network.self, forKey: .network)
        requiresAC = try container.decode(Bool.self, forKey: .requiresAC)
        minBattery = try container.decodeIfPresent(Double.self, forKey: .minBattery)
        requiresIdle = try container.decodeIfPresent(Bool.self, forKey: .requiresIdle) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(network, forKey: .network)
        try container.encode(requiresAC, forKey: .requiresAC)
        try container.encodeIfPresent(minBattery, forKey: .minBattery)
        if requiresIdle { try container.encode(requiresIdle, forKey: .requiresIdle) }
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
