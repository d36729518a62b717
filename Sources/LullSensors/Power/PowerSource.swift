import Logging
import LullCore

/// Where the daemon learns whether it runs on battery. Implementations are event-driven:
/// they never poll, and they yield only real changes.
public protocol PowerSource: AnyObject, Sendable {
    /// The latest reading (`PowerState.unknown` until `start()` has read once).
    var current: PowerState { get }
    /// Readings after this call, one per change.
    func changes() -> AsyncStream<PowerState>
    /// The current reading first, then every change.
    func values() -> AsyncStream<PowerState>
    /// Reads the initial state and begins listening. After it returns, `current` is real.
    func start() async throws
    /// Stops listening and ends every stream.
    func stop() async
}

/// Kernel device events (uevents) that tell a sysfs-based source to read again. Injectable so
/// tests can fire them by hand.
public protocol DeviceEventSource: Sendable {
    /// Begins delivering events; `onEvent` may run on any thread.
    func start(_ onEvent: @escaping @Sendable () -> Void) async throws
    func stop() async
}

/// Picks the best power source available on this machine.
public enum PowerSourceDiscovery {
    /// UPower when `org.freedesktop.UPower` is on the bus (running or activatable), with
    /// `/sys/class/power_supply` standing in while UPower is gone (`SysfsBackedPowerSource`);
    /// otherwise the tree alone, re-read at kernel uevents. The returned source is started.
    public static func start(
        bus: BusEndpoint = .system,
        sysfsRoot: String = "/sys/class/power_supply",
        events: (any DeviceEventSource)? = KernelUeventMonitor(subsystem: "power_supply"),
        sleeper: any Sleeper = TaskSleeper(),
        logger: Logger = Logger(label: "lull.sensors.power")
    ) async -> any PowerSource {
        if await serviceAvailable(UPowerPowerSource.serviceName, on: bus, logger: logger) {
            let upower = UPowerPowerSource(bus: bus, sleeper: sleeper, logger: logger)
            do {
                try await upower.start()
                let sysfs = SysfsPowerSource(root: sysfsRoot, events: events, sleeper: sleeper, logger: logger)
                try? await sysfs.start()
                let backed = SysfsBackedPowerSource(upower: upower, sysfs: sysfs, logger: logger)
                try? await backed.start()
                logger.info("power source: UPower, sysfs while it is gone", metadata: ["bus": "\(bus)"])
                return backed
            } catch {
                logger.warning(
                    "UPower is on the bus but could not be read; using sysfs",
                    metadata: ["error": "\(error)"]
                )
                await upower.stop()
            }
        }
        let sysfs = SysfsPowerSource(root: sysfsRoot, events: events, sleeper: sleeper, logger: logger)
        try? await sysfs.start()
        logger.info("power source: sysfs", metadata: ["root": "\(sysfsRoot)"])
        return sysfs
    }

    /// Whether `name` is owned or activatable on `bus`; false when the bus cannot be reached.
    static func serviceAvailable(_ name: String, on bus: BusEndpoint, logger: Logger) async -> Bool {
        do {
            return try await BusConnection.once(bus, name: "lull-dbus-probe") { try $0.nameIsAvailable(name) }
        } catch {
            logger.debug("D-Bus not reachable", metadata: ["bus": "\(bus)", "error": "\(error)"])
            return false
        }
    }
}
