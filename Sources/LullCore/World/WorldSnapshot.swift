/// Everything the scheduler knows about the machine at one moment: one immutable value,
/// rebuilt on every change, with the source of each part recorded so `explain` can cite it
/// ("battery 18% from UPower DisplayDevice").
public struct WorldSnapshot: Sendable, Equatable {
    public var power: PowerState
    public var network: NetworkState
    public var pressure: PressureState
    public var idle: IdleState

    public init(
        power: PowerState = .unknown,
        network: NetworkState = .unknown,
        pressure: PressureState = .unknown,
        idle: IdleState = .unknown
    ) {
        self.power = power
        self.network = network
        self.pressure = pressure
        self.idle = idle
    }

    /// What a daemon assumes before any sensor has spoken: on AC, maybe online, no pressure,
    /// idle unknown.
    public static let assumed = WorldSnapshot()
}

/// Power as the scheduler sees it.
public struct PowerState: Sendable, Equatable {
    /// True when running from a battery (no mains or UPS on line).
    public var onBattery: Bool
    /// Charge of the system battery (0–100), nil when there is none or it is unknown.
    public var batteryPercent: Double?
    /// A low-power signal is active (power-profiles-daemon `power-saver`, or the battery's warning level).
    public var lowPower: Bool
    /// Where this came from, for explanations: "UPower DisplayDevice", "sysfs BAT0", "assumed".
    public var source: String

    public init(onBattery: Bool, batteryPercent: Double? = nil, lowPower: Bool = false, source: String) {
        self.onBattery = onBattery
        self.batteryPercent = batteryPercent
        self.lowPower = lowPower
        self.source = source
    }

    /// No battery and no mains entry means a machine on AC.
    public static let unknown = PowerState(onBattery: false, source: "assumed (no power source found)")
}

/// Connectivity as the scheduler sees it. Unknown connectivity is "maybe online", never offline.
public struct NetworkState: Sendable, Equatable {
    public enum Connectivity: String, Sendable, Equatable, CaseIterable {
        case online
        case offline
        /// Some link is up but full connectivity is not confirmed (or nobody can tell).
        case unknown
    }

    public var connectivity: Connectivity
    public var metered: Bool
    public var cellular: Bool
    /// The interface carrying the default route, when known.
    public var interface: String?
    /// What kind of link that interface is, for per-job byte accounting.
    public var link: LinkType
    public var source: String

    public init(
        connectivity: Connectivity,
        metered: Bool = false,
        cellular: Bool = false,
        interface: String? = nil,
        link: LinkType = .unknown,
        source: String
    ) {
        self.connectivity = connectivity
        self.metered = metered
        self.cellular = cellular
        self.interface = interface
        self.link = link
        self.source = source
    }

    public static let unknown = NetworkState(connectivity: .unknown, source: "assumed (no network source yet)")
}

/// Pressure stall information: the share of the last 10 s in which some task waited, 0–100.
public struct PressureState: Sendable, Equatable {
    public var cpu: Double?
    public var memory: Double?
    public var io: Double?
    public var source: String

    public init(cpu: Double? = nil, memory: Double? = nil, io: Double? = nil, source: String) {
        self.cpu = cpu
        self.memory = memory
        self.io = io
        self.source = source
    }

    public static let unknown = PressureState(source: "not sampled")
}
