import Logging
import LullCore
import Synchronization

/// Power from UPower on D-Bus: `OnBattery` on the daemon object, `Percentage`, `State`,
/// `IsPresent` and `WarningLevel` of the DisplayDevice (UPower's combined battery), and
/// power-profiles-daemon's `ActiveProfile` (`power-saver` → `lowPower`). Follows the
/// `PropertiesChanged` signals; re-reads everything when UPower or the profiles daemon
/// (re)appears on the bus.
public final class UPowerPowerSource: PowerSource {
    public static let serviceName = "org.freedesktop.UPower"
    static let path = "/org/freedesktop/UPower"
    static let deviceInterface = "org.freedesktop.UPower.Device"
    static let defaultDisplayDevice = "/org/freedesktop/UPower/devices/DisplayDevice"
    /// power-profiles-daemon: the name since 0.20, then the historical one.
    static let profileServices: [(name: String, path: String)] = [
        ("org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles"),
        ("net.hadess.PowerProfiles", "/net/hadess/PowerProfiles"),
    ]

    /// What UPower told us, property by property.
    struct Model: Sendable, Equatable {
        var onBattery: Bool?
        var percentage: Double?
        var isPresent: Bool?
        var deviceState: UInt32?
        var warningLevel: UInt32?
        /// Active profile per profiles service name.
        var profiles: [String: String] = [:]
        /// False once UPower (or the bus) went away, until it is read again.
        var onBus = true
    }

    public let bus: BusEndpoint
    private let logger: Logger
    private let sleeper: any Sleeper
    private let broadcaster = StateBroadcaster(PowerState.unknown)
    private let model = Mutex(Model())
    private let link: SensorBusLink

    /// - Parameters:
    ///   - sleeper: how the source waits before connecting again after losing the bus.
    ///   - reconnectDelay: the first of those waits, doubling up to a minute.
    public init(
        bus: BusEndpoint = .system,
        sleeper: any Sleeper = TaskSleeper(),
        reconnectDelay: Duration = .seconds(1),
        logger: Logger = Logger(label: "lull.sensors.power")
    ) {
        self.bus = bus
        self.sleeper = sleeper
        self.logger = logger
        link = SensorBusLink(reconnectDelay: reconnectDelay)
    }

    /// Whether UPower's reading is live: false while UPower, or the bus, is gone (`current` then
    /// keeps its last values and says so in its source).
    public var isOnBus: Bool { model.withLock { $0.onBus } }

    public var current: PowerState { broadcaster.current }
    public func changes() -> AsyncStream<PowerState> { broadcaster.changes() }
    public func values() -> AsyncStream<PowerState> { broadcaster.values() }

    public func start() async throws {
        do {
            try await link.open(
                bus,
                name: "lull-dbus-upower",
                following: "power state",
                logger: logger,
                sleeper: sleeper,
                lost: { [weak self] in self?.leftTheBus() }
            ) { [self] context in
                let display =
                    (try? context.call(
                        destination: Self.serviceName,
                        path: Self.path,
                        interface: Self.serviceName,
                        member: "GetDisplayDevice"
                    ).read().string)
                    ?? Self.defaultDisplayDevice
                try subscribe(context, displayDevice: display)
                try readAll(context, displayDevice: display)
            }
        } catch {
            broadcaster.finish()
            throw error
        }
    }

    public func stop() async {
        await link.close()
        broadcaster.finish()
    }

    // MARK: on the bus thread

    private func subscribe(_ context: BusContext, displayDevice: String) throws {
        try context.onPropertiesChanged(sender: Self.serviceName, path: Self.path) {
            [self] interface, changed, invalidated in
            guard interface == Self.serviceName else { return }
            var refetch = invalidated.contains("OnBattery")
            model.withLock { model in
                if let value = changed["OnBattery"]?.bool {
                    model.onBattery = value
                    refetch = false
                }
            }
            if refetch { try? readDaemon(context) }
            publish()
        }
        try context.onPropertiesChanged(sender: Self.serviceName, path: displayDevice) {
            [self] interface, changed, invalidated in
            guard interface == Self.deviceInterface else { return }
            model.withLock { model in Self.apply(device: changed, to: &model) }
            if invalidated.contains(where: { ["Percentage", "State", "WarningLevel", "IsPresent"].contains($0) }) {
                try? readDevice(context, displayDevice)
            }
            publish()
        }
        try context.onNameOwnerChanged(Self.serviceName) { [self] hasOwner in
            guard hasOwner else {
                logger.warning("UPower left the bus")
                leftTheBus()
                return
            }
            try? readAll(context, displayDevice: displayDevice)
        }
        for service in Self.profileServices {
            try context.onPropertiesChanged(sender: service.name, path: service.path) { [self] interface, changed, _ in
                guard interface == service.name, let profile = changed["ActiveProfile"]?.string else { return }
                model.withLock { $0.profiles[service.name] = profile }
                publish()
            }
            try context.onNameOwnerChanged(service.name) { [self] hasOwner in
                if hasOwner {
                    readProfile(context, service: service)
                } else {
                    model.withLock { _ = $0.profiles.removeValue(forKey: service.name) }
                }
                publish()
            }
        }
    }

    private func readAll(_ context: BusContext, displayDevice: String) throws {
        try readDaemon(context)
        try readDevice(context, displayDevice)
        for service in Self.profileServices { readProfile(context, service: service) }
        model.withLock { $0.onBus = true }
        publish()
    }

    private func leftTheBus() {
        model.withLock { $0.onBus = false }
        publish()
    }

    private func readDaemon(_ context: BusContext) throws {
        let properties = try context.getAll(destination: Self.serviceName, path: Self.path, interface: Self.serviceName)
        model.withLock { $0.onBattery = properties["OnBattery"]?.bool }
    }

    private func readDevice(_ context: BusContext, _ path: String) throws {
        let properties = try context.getAll(destination: Self.serviceName, path: path, interface: Self.deviceInterface)
        model.withLock { Self.apply(device: properties, to: &$0) }
    }

    /// The profiles daemon is optional: absent means no profile signal.
    private func readProfile(_ context: BusContext, service: (name: String, path: String)) {
        let owned =
            (try? context.call(
                destination: "org.freedesktop.DBus",
                path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus",
                member: "NameHasOwner",
                arguments: [.string(service.name)]
            ).read().bool) ?? false
        let profile =
            owned
            ? (try? context.get(
                destination: service.name,
                path: service.path,
                interface: service.name,
                property: "ActiveProfile"
            ))?.string
            : nil
        model.withLock { $0.profiles[service.name] = profile }
    }

    private static func apply(device properties: [String: DBusValue], to model: inout Model) {
        if let value = properties["Percentage"]?.double { model.percentage = value }
        if let value = properties["IsPresent"]?.bool { model.isPresent = value }
        if let value = properties["State"]?.integer { model.deviceState = UInt32(truncatingIfNeeded: value) }
        if let value = properties["WarningLevel"]?.integer { model.warningLevel = UInt32(truncatingIfNeeded: value) }
    }

    private func publish() {
        let state = Self.state(from: model.withLock { $0 })
        if broadcaster.update(state) {
            logger.debug("power changed", metadata: ["on_battery": "\(state.onBattery)", "source": "\(state.source)"])
        }
    }

    /// UPower device states and warning levels (up-types.h).
    enum DeviceState: UInt32 {
        case unknown = 0
        case charging, discharging, empty, fullyCharged, pendingCharge, pendingDischarge
    }
    enum WarningLevel: UInt32 {
        case unknown = 0
        case none, discharging, low, critical, action
    }

    static func state(from model: Model) -> PowerState {
        // OnBattery is UPower's own verdict (it also covers UPS); the device state is a fallback.
        let onBattery =
            model.onBattery
            ?? (model.deviceState == DeviceState.discharging.rawValue
                || model.deviceState == DeviceState.empty.rawValue)
        let percent = model.isPresent == true ? model.percentage.map { min(100, max(0, $0)) } : nil
        let warningLow = (model.warningLevel ?? 0) >= WarningLevel.low.rawValue
        let powerSaver = model.profiles.values.contains("power-saver")
        var source = "UPower DisplayDevice"
        if powerSaver { source += " + power-profiles-daemon power-saver" }
        if !model.onBus { source += " (not on the bus: last reading)" }
        return PowerState(
            onBattery: onBattery,
            batteryPercent: percent,
            lowPower: warningLow || powerSaver,
            source: source
        )
    }
}
