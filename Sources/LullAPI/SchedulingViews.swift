import Foundation
import LullCore

/// One unmet condition of a queued job, as the API shows it.
public struct WaitingReasonView: Codable, Sendable, Equatable {
    public var code: String
    /// The condition in plain words, citing the config key and where it was set.
    public var text: String
    public var seen: String
    public var limit: String?
    public var setting: String?
    public var jobClass: String?
    /// Where the rule was configured (`file:line`), when it came from a config file.
    public var config: String?
    /// The rule is the job's own constraint rather than its class's.
    public var fromJob: Bool
    /// When this condition will be looked at again, when known.
    public var until: Date?

    enum CodingKeys: String, CodingKey {
        case code, text, seen, limit, setting
        case jobClass = "class"
        case config
        case fromJob = "from_job"
        case until
    }

    public init(_ reason: WaitingReason) {
        code = reason.code.rawValue
        text = reason.description
        seen = reason.seen
        limit = reason.limit
        setting = reason.setting
        jobClass = reason.className
        config = reason.origin?.location
        fromJob = reason.fromJob
        until = reason.until
    }
}

/// The machine as the scheduler last saw it, with where each part came from.
public struct WorldView: Codable, Sendable, Equatable {
    public struct Power: Codable, Sendable, Equatable {
        public var onBattery: Bool
        public var batteryPercent: Double?
        public var lowPower: Bool
        public var source: String
        enum CodingKeys: String, CodingKey {
            case onBattery = "on_battery"
            case batteryPercent = "battery_percent"
            case lowPower = "low_power"
            case source
        }
    }

    public struct Network: Codable, Sendable, Equatable {
        public var connectivity: String
        public var metered: Bool
        public var cellular: Bool
        public var interface: String?
        public var link: String
        public var source: String
    }

    public struct Pressure: Codable, Sendable, Equatable {
        public var cpu: Double?
        public var memory: Double?
        public var io: Double?
        public var source: String
    }

    /// Whether someone uses the machine (logind), for jobs that require it idle.
    public struct Idle: Codable, Sendable, Equatable {
        /// "unknown" (no logind: a job that requires idle waits), "active" or "idle".
        public var state: String
        /// When the machine became idle, while idle; absent when it has no sessions at all.
        public var since: Date?
        public var source: String
    }

    public var power: Power
    public var network: Network
    public var pressure: Pressure
    /// Absent from daemons before idle was sensed.
    public var idle: Idle?

    public init(_ world: WorldSnapshot) {
        power = Power(
            onBattery: world.power.onBattery,
            batteryPercent: world.power.batteryPercent,
            lowPower: world.power.lowPower,
            source: world.power.source
        )
        network = Network(
            connectivity: world.network.connectivity.rawValue,
            metered: world.network.metered,
            cellular: world.network.cellular,
            interface: world.network.interface,
            link: world.network.link.rawValue,
            source: world.network.source
        )
        pressure = Pressure(
            cpu: world.pressure.cpu,
            memory: world.pressure.memory,
            io: world.pressure.io,
            source: world.pressure.source
        )
        idle = Idle(
            state: world.idle.name,
            since: world.idle.since.flatMap { $0 == .distantPast ? nil : $0 },
            source: world.idle.source
        )
    }
}

/// `GET /v1/jobs/{id}/explain`: why a job is (not) running, in words and codes.
public struct ExplainView: Codable, Sendable {
    public var jobId: Int64
    public var state: JobState
    public var summary: String
    public var reasons: [WaitingReasonView]
    public var nextCheck: Date?
    public var world: WorldView
    /// Times the job was stopped because its conditions lapsed while it ran, and the latest
    /// reason; absent when never.
    public var stops: Int?
    public var lastStopReason: WaitingReason.Code?

    enum CodingKeys: String, CodingKey {
        case jobId = "job_id"
        case state, summary, reasons
        case nextCheck = "next_check"
        case world, stops
        case lastStopReason = "last_stop_reason"
    }

    public init(
        jobId: Int64,
        state: JobState,
        summary: String,
        reasons: [WaitingReasonView],
        nextCheck: Date?,
        world: WorldView,
        stops: Int? = nil,
        lastStopReason: WaitingReason.Code? = nil
    ) {
        self.jobId = jobId
        self.state = state
        self.summary = summary
        self.reasons = reasons
        self.nextCheck = nextCheck
        self.world = world
        self.stops = stops
        self.lastStopReason = lastStopReason
    }
}

/// `POST /v1/simulate`: a hypothetical world. Fields left out keep the current value.
public struct SimulateRequest: Codable, Sendable, Equatable {
    public var onBattery: Bool?
    public var battery: Double?
    public var metered: Bool?
    public var cellular: Bool?
    public var offline: Bool?
    public var cpuPressure: Double?
    public var memoryPressure: Double?
    /// true: nobody has used the machine for long; false: someone uses it.
    public var idle: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case onBattery = "on_battery"
        case battery, metered, cellular, offline
        case cpuPressure = "cpu_pressure"
        case memoryPressure = "memory_pressure"
        case idle
    }

    public init(
        onBattery: Bool? = nil,
        battery: Double? = nil,
        metered: Bool? = nil,
        cellular: Bool? = nil,
        offline: Bool? = nil,
        cpuPressure: Double? = nil,
        memoryPressure: Double? = nil,
        idle: Bool? = nil
    ) {
        self.onBattery = onBattery
        self.battery = battery
        self.metered = metered
        self.cellular = cellular
        self.offline = offline
        self.cpuPressure = cpuPressure
        self.memoryPressure = memoryPressure
        self.idle = idle
    }

    public init(from decoder: any Decoder) throws {
        let c = try StrictKeys.container(decoder, keyedBy: CodingKeys.self)
        onBattery = try c.decodeIfPresent(Bool.self, forKey: .onBattery)
        battery = try c.decodeIfPresent(Double.self, forKey: .battery)
        metered = try c.decodeIfPresent(Bool.self, forKey: .metered)
        cellular = try c.decodeIfPresent(Bool.self, forKey: .cellular)
        offline = try c.decodeIfPresent(Bool.self, forKey: .offline)
        cpuPressure = try c.decodeIfPresent(Double.self, forKey: .cpuPressure)
        memoryPressure = try c.decodeIfPresent(Double.self, forKey: .memoryPressure)
        idle = try c.decodeIfPresent(Bool.self, forKey: .idle)
    }

    /// `world` changed as this request says; every changed part is marked as simulated.
    public func applied(to world: WorldSnapshot) -> WorldSnapshot {
        var world = world
        if onBattery != nil || battery != nil {
            world.power = PowerState(
                onBattery: onBattery ?? world.power.onBattery,
                batteryPercent: battery ?? world.power.batteryPercent,
                lowPower: world.power.lowPower,
                source: "simulated"
            )
        }
        if metered != nil || cellular != nil || offline != nil {
            world.network = NetworkState(
                connectivity: offline == true ? .offline : (offline == false ? .online : world.network.connectivity),
                // Cellular counts as metered, as the sensors report it, unless the request says otherwise.
                metered: metered ?? (cellular == true ? true : world.network.metered),
                cellular: cellular ?? world.network.cellular,
                interface: world.network.interface,
                link: cellular == true ? .cellular : world.network.link,
                source: "simulated"
            )
        }
        if cpuPressure != nil || memoryPressure != nil {
            world.pressure = PressureState(
                cpu: cpuPressure ?? world.pressure.cpu,
                memory: memoryPressure ?? world.pressure.memory,
                io: world.pressure.io,
                source: "simulated"
            )
        }
        if let idle {
            world.idle = IdleState(idle ? .idle(since: .distantPast) : .active, source: "simulated")
        }
        return world
    }
}

/// The answer to `POST /v1/simulate`.
public struct SimulationView: Codable, Sendable {
    public struct Waiting: Codable, Sendable {
        public var jobId: Int64
        public var reasons: [WaitingReasonView]
        enum CodingKeys: String, CodingKey {
            case jobId = "job_id"
            case reasons
        }
        public init(jobId: Int64, reasons: [WaitingReasonView]) {
            self.jobId = jobId
            self.reasons = reasons
        }
    }

    public var world: WorldView
    public var wouldStart: [Int64]
    public var waiting: [Waiting]
    public var waitingCount: Int

    enum CodingKeys: String, CodingKey {
        case world
        case wouldStart = "would_start"
        case waiting
        case waitingCount = "waiting_count"
    }

    public init(world: WorldView, wouldStart: [Int64], waiting: [Waiting], waitingCount: Int) {
        self.world = world
        self.wouldStart = wouldStart
        self.waiting = waiting
        self.waitingCount = waitingCount
    }
}
