import Logging
import LullCore
import Synchronization

/// Connectivity from NetworkManager on D-Bus: `Connectivity`, `Metered`,
/// `PrimaryConnectionType` and the primary connection's device (interface name and device
/// type), following `PropertiesChanged`. Admin declarations (`NetworkOverrides`) apply on top.
public final class NetworkManagerSource: NetworkSource {
    public static let serviceName = "org.freedesktop.NetworkManager"
    static let path = "/org/freedesktop/NetworkManager"
    static let activeInterface = "org.freedesktop.NetworkManager.Connection.Active"
    static let deviceInterface = "org.freedesktop.NetworkManager.Device"

    /// NMConnectivityState
    enum Connectivity: UInt32 {
        case unknown = 0
        case noConnectivity, portal, limited, full
    }
    /// NMMetered
    enum Metered: UInt32 {
        case unknown = 0
        case yes, no, guessYes, guessNo
    }
    /// NMDeviceType values that matter here.
    enum DeviceType: UInt32 {
        case ethernet = 1
        case wifi = 2
        case modem = 8
    }

    struct Model: Sendable, Equatable {
        var connectivity: UInt32?
        var metered: UInt32?
        var primaryConnection: String?
        var primaryConnectionType: String?
        var primaryInterface: String?
        var primaryDeviceType: UInt32?
        /// False once NetworkManager left the bus, until it is back.
        var onBus = true
    }

    public let bus: BusEndpoint
    public let overrides: NetworkOverrides
    private let logger: Logger
    private let sleeper: any Sleeper
    private let broadcaster = StateBroadcaster(NetworkReading.unknown)
    private let model = Mutex(Model())
    private let link: SensorBusLink

    /// - Parameters:
    ///   - sleeper: how the source waits before connecting again after losing the bus.
    ///   - reconnectDelay: the first of those waits, doubling up to a minute.
    public init(
        bus: BusEndpoint = .system,
        overrides: NetworkOverrides = .init(),
        sleeper: any Sleeper = TaskSleeper(),
        reconnectDelay: Duration = .seconds(1),
        logger: Logger = Logger(label: "lull.sensors.network")
    ) {
        self.bus = bus
        self.overrides = overrides
        self.sleeper = sleeper
        self.logger = logger
        link = SensorBusLink(reconnectDelay: reconnectDelay)
    }

    public var current: NetworkReading { broadcaster.current }
    public func changes() -> AsyncStream<NetworkReading> { broadcaster.changes() }
    public func values() -> AsyncStream<NetworkReading> { broadcaster.values() }

    /// Whether NetworkManager is on the bus (its leaving changes `current` too).
    public var isOnBus: Bool { model.withLock { $0.onBus } }

    public func start() async throws {
        do {
            try await link.open(
                bus,
                name: "lull-dbus-nm",
                following: "network state",
                logger: logger,
                sleeper: sleeper,
                lost: { [weak self] in self?.leftTheBus() }
            ) { [self] context in
                try subscribe(context)
                try readAll(context)
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

    private func subscribe(_ context: BusContext) throws {
        try context.onPropertiesChanged(sender: Self.serviceName, path: Self.path) {
            [self] interface, changed, invalidated in
            guard interface == Self.serviceName else { return }
            apply(changed, context)
            if !invalidated.isEmpty { try? readAll(context) }
            publish()
        }
        // NetworkManager before 1.44 also sent its own PropertiesChanged(a{sv}) on the manager.
        let legacy =
            "type='signal',sender='\(Self.serviceName)',path='\(Self.path)',interface='\(Self.serviceName)',member='PropertiesChanged'"
        try context.addMatch(legacy) { [self] message in
            guard let changed = (try? message.read())?.stringDictionary else { return }
            apply(changed, context)
            publish()
        }
        try context.onNameOwnerChanged(Self.serviceName) { [self] hasOwner in
            if hasOwner {
                try? readAll(context)
            } else {
                logger.warning("NetworkManager left the bus; connectivity unknown")
                leftTheBus()
            }
        }
    }

    /// NetworkManager, or the bus, is gone: nothing it said holds any more.
    private func leftTheBus() {
        model.withLock { $0 = Model(onBus: false) }
        publish()
    }

    private func readAll(_ context: BusContext) throws {
        let properties = try context.getAll(destination: Self.serviceName, path: Self.path, interface: Self.serviceName)
        model.withLock { $0 = Model() }
        apply(properties, context)
        publish()
    }

    /// Folds changed manager properties into the model, resolving the primary connection's
    /// device when it changes.
    private func apply(_ properties: [String: DBusValue], _ context: BusContext) {
        var resolve: String? = nil
        model.withLock { model in
            if let value = properties["Connectivity"]?.integer {
                model.connectivity = UInt32(truncatingIfNeeded: value)
            }
            if let value = properties["Metered"]?.integer { model.metered = UInt32(truncatingIfNeeded: value) }
            if let value = properties["PrimaryConnectionType"]?.string { model.primaryConnectionType = value }
            if let value = properties["PrimaryConnection"]?.string, value != model.primaryConnection {
                model.primaryConnection = value
                resolve = value
            }
        }
        if let path = resolve {
            let device = resolveDevice(context, activeConnection: path)
            model.withLock { model in
                guard model.primaryConnection == path else { return }
                model.primaryInterface = device.interface
                model.primaryDeviceType = device.type
            }
        }
    }

    private func resolveDevice(
        _ context: BusContext,
        activeConnection path: String
    ) -> (interface: String?, type: UInt32?) {
        guard path != "/", !path.isEmpty,
            let devices =
                (try? context.get(
                    destination: Self.serviceName,
                    path: path,
                    interface: Self.activeInterface,
                    property: "Devices"
                ))?.array,
            let device = devices.first?.string,
            let properties = try? context.getAll(
                destination: Self.serviceName,
                path: device,
                interface: Self.deviceInterface
            )
        else { return (nil, nil) }
        let ipInterface = properties["IpInterface"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        return (
            ipInterface ?? properties["Interface"]?.string,
            properties["DeviceType"]?.integer.map { UInt32(truncatingIfNeeded: $0) }
        )
    }

    private func publish() {
        let reading = overrides.apply(to: Self.reading(from: model.withLock { $0 }))
        if broadcaster.update(reading) {
            logger.debug(
                "network changed",
                metadata: [
                    "connectivity": "\(reading.state.connectivity)",
                    "metered": "\(reading.state.metered)",
                    "source": "\(reading.state.source)",
                ]
            )
        }
    }

    static func reading(from model: Model) -> NetworkReading {
        let connectivity: NetworkState.Connectivity =
            switch model.connectivity.flatMap(Connectivity.init(rawValue:)) {
            case .noConnectivity?: .offline
            case .full?: .online
            // UNKNOWN means "maybe online" (often: checking disabled); PORTAL and LIMITED are up
            // but not confirmed. None of them is offline.
            default: .unknown
            }
        let metered = model.metered == Metered.yes.rawValue || model.metered == Metered.guessYes.rawValue
        let type = model.primaryConnectionType
        let cellular = type == "gsm" || type == "cdma" || model.primaryDeviceType == DeviceType.modem.rawValue
        let link: LinkType
        if cellular {
            link = .cellular
        } else if type == "802-11-wireless" || model.primaryDeviceType == DeviceType.wifi.rawValue {
            link = .wifi
        } else if type == "802-3-ethernet" || model.primaryDeviceType == DeviceType.ethernet.rawValue {
            link = .ethernet
        } else if type == nil || type == "" || connectivity == .offline {
            link = .unknown
        } else {
            link = .other
        }
        var source = model.onBus ? "NetworkManager" : "NetworkManager (not on the bus)"
        if let interface = model.primaryInterface { source += " \(interface)" }
        if let type, !type.isEmpty { source += " (\(type))" }
        let state = NetworkState(
            connectivity: connectivity,
            metered: metered,
            cellular: cellular,
            interface: model.primaryInterface,
            source: source
        )
        return NetworkReading(state: state, link: link)
    }
}
