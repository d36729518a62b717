import Foundation
import Logging
import LullCore
import LullSensors

/// Keeps the dispatcher's world current: it listens to the power, network and idle sources
/// (which are event-driven themselves) and to the sampler's pressure readings (taken only while
/// someone needs them), and hands over every change. No timers of its own.
final class WorldMonitor: Sendable {
    private let power: any PowerSource
    private let network: any NetworkSource
    private let idle: any IdleSource
    /// Pressure, CPU and memory: runs only while jobs wait on pressure or someone watches.
    let sampler: Sampler
    private let logger: Logger
    private let task = TaskBox()

    /// The world as the sources read it at start-up, before any job is dispatched.
    var current: WorldSnapshot {
        WorldSnapshot(power: power.current, network: network.current.state, pressure: .unknown, idle: idle.current)
    }

    /// Starts the best sources this machine has.
    /// - Parameter sleeper: how the sampler waits between samples, and the sources between reads
    ///   and reconnections.
    static func start(config: SensorSettings, sleeper: any Sleeper, logger: Logger) async -> WorldMonitor {
        let power = await PowerSourceDiscovery.start(
            bus: config.bus,
            sysfsRoot: config.powerSupplyRoot,
            sleeper: sleeper,
            logger: logger
        )
        let network = await NetworkSourceDiscovery.start(
            bus: config.bus,
            overrides: NetworkOverrides(
                meteredInterfaces: InterfacePatterns(config.meteredInterfaces),
                cellularInterfaces: InterfacePatterns(config.cellularInterfaces)
            ),
            sleeper: sleeper,
            logger: logger
        )
        let idle = LogindIdleSource(bus: config.bus, sleeper: sleeper, logger: logger)
        await idle.start()
        logger.info(
            "idle source: logind",
            metadata: ["idle": "\(idle.current.name)", "source": "\(idle.current.source)"]
        )
        // The daemon's own cgroup numbers need cgroup v2; on v1 there is nothing to read, and
        // looking for it every second would cost more than the sample.
        let cgroupV2 = FileManager.default.fileExists(atPath: "/sys/fs/cgroup/cgroup.controllers")
        let sampler = Sampler(
            configuration: Sampler.Configuration(
                procRoot: config.procRoot,
                cgroupRoot: cgroupV2 ? "/sys/fs/cgroup" : nil
            ),
            sleeper: sleeper
        )
        return WorldMonitor(power: power, network: network, idle: idle, sampler: sampler, logger: logger)
    }

    private init(
        power: any PowerSource,
        network: any NetworkSource,
        idle: any IdleSource,
        sampler: Sampler,
        logger: Logger
    ) {
        self.power = power
        self.network = network
        self.idle = idle
        self.sampler = sampler
        self.logger = logger
    }

    /// Hands every later change to `dispatcher`.
    func follow(_ dispatcher: Dispatcher) {
        let power = self.power
        let network = self.network
        let idle = self.idle
        let sampler = self.sampler
        let logger = self.logger
        task.set(
            Task {
                await withDiscardingTaskGroup { group in
                    group.addTask {
                        for await state in power.values() {
                            logger.info(
                                "power changed",
                                metadata: [
                                    "on_battery": "\(state.onBattery)",
                                    "battery": "\(state.batteryPercent.map { "\($0)" } ?? "-")",
                                    "source": "\(state.source)",
                                ]
                            )
                            await dispatcher.update(power: state)
                        }
                    }
                    group.addTask {
                        for await reading in network.values() {
                            logger.info(
                                "network changed",
                                metadata: [
                                    "connectivity": "\(reading.state.connectivity.rawValue)",
                                    "metered": "\(reading.state.metered)",
                                    "interface": "\(reading.state.interface ?? "-")",
                                    "source": "\(reading.state.source)",
                                ]
                            )
                            await dispatcher.update(network: reading.state)
                        }
                    }
                    group.addTask {
                        for await state in idle.values() {
                            logger.info(
                                "idleness changed",
                                metadata: [
                                    "idle": "\(state.name)",
                                    "since": "\(state.since.map { "\($0)" } ?? "-")",
                                    "source": "\(state.source)",
                                ]
                            )
                            await dispatcher.update(idle: state)
                        }
                    }
                    group.addTask {
                        for await pressure in sampler.pressureChanges() {
                            await dispatcher.update(pressure: pressure)
                        }
                    }
                }
            }
        )
    }

    func stop() async {
        task.cancel()
        await power.stop()
        await network.stop()
        await idle.stop()
    }
}

/// Holds the follower task so `stop()` can cancel it.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    func set(_ task: Task<Void, Never>) { lock.withLock { self.task = task } }
    func cancel() { lock.withLock { task }?.cancel() }
}

/// `[sensors]`: where the daemon learns about the machine.
public struct SensorSettings: Sendable, Equatable {
    /// `bus`: "system" or a D-Bus address (tests point this at a private bus).
    public var bus: BusEndpoint = .system
    /// `power_supply_root`: the sysfs power-supply directory used when UPower is absent.
    public var powerSupplyRoot = "/sys/class/power_supply"
    /// `proc_root`: where pressure (`pressure/{cpu,memory,io}`), `stat`, `meminfo` and `loadavg` are read.
    public var procRoot = "/proc"
    /// `metered_interfaces`, `cellular_interfaces`: interface-name globs the admin declares.
    public var meteredInterfaces: [String] = []
    public var cellularInterfaces: [String] = []

    public init() {}
}
