import Logging
import LullCore

/// One network reading: the scheduler's `NetworkState`, whose link type sources classify.
public struct NetworkReading: Sendable, Equatable {
    public var state: NetworkState
    public var link: LinkType {
        get { state.link }
        set { state.link = newValue }
    }

    public init(state: NetworkState, link: LinkType) {
        self.state = state
        self.state.link = link
    }

    public static let unknown = NetworkReading(state: .unknown, link: .unknown)
}

/// What the admin declares about interfaces (`metered_interfaces`, `cellular_interfaces` in
/// lull.toml), as `fnmatch` patterns over the name of the interface carrying the default
/// route. Declarations only add, never remove: an interface matching `meteredInterfaces` is
/// metered whatever the sensor says; one matching `cellularInterfaces` is a cellular link and
/// therefore metered too (the conservative reading, as phones do).
public struct NetworkOverrides: Sendable, Equatable {
    public var meteredInterfaces: InterfacePatterns
    public var cellularInterfaces: InterfacePatterns

    public init(meteredInterfaces: InterfacePatterns = [], cellularInterfaces: InterfacePatterns = []) {
        self.meteredInterfaces = meteredInterfaces
        self.cellularInterfaces = cellularInterfaces
    }

    /// Applies the declarations to a reading whose interface is known.
    public func apply(to reading: NetworkReading) -> NetworkReading {
        guard let interface = reading.state.interface else { return reading }
        var result = reading
        var notes: [String] = []
        let cellular = cellularInterfaces.matches(interface)
        if cellular {
            if !result.state.cellular { notes.append("cellular") }
            result.state.cellular = true
            result.link = .cellular
        }
        if meteredInterfaces.matches(interface) || cellular {
            if !result.state.metered { notes.append("metered") }
            result.state.metered = true
        }
        if !notes.isEmpty {
            result.state.source += " (\(notes.joined(separator: ", ")) by admin declaration)"
        }
        return result
    }
}

/// Where the daemon learns about connectivity. Event-driven; yields only real changes.
public protocol NetworkSource: AnyObject, Sendable {
    var current: NetworkReading { get }
    func changes() -> AsyncStream<NetworkReading>
    func values() -> AsyncStream<NetworkReading>
    func start() async throws
    func stop() async
}

/// Picks the best network source available on this machine.
public enum NetworkSourceDiscovery {
    /// NetworkManager when `org.freedesktop.NetworkManager` is on the bus, checked against the
    /// kernel's routes (`KernelCheckedNetworkSource`), otherwise rtnetlink. The returned source
    /// is started (a netlink source that cannot open its socket stays at `.unknown`, which the
    /// scheduler treats as "maybe online").
    public static func start(
        bus: BusEndpoint = .system,
        overrides: NetworkOverrides = .init(),
        sysClassNet: String = "/sys/class/net",
        sleeper: any Sleeper = TaskSleeper(),
        logger: Logger = Logger(label: "lull.sensors.network")
    ) async -> any NetworkSource {
        if await PowerSourceDiscovery.serviceAvailable(NetworkManagerSource.serviceName, on: bus, logger: logger) {
            let nm = NetworkManagerSource(bus: bus, overrides: overrides, sleeper: sleeper, logger: logger)
            do {
                try await nm.start()
                let kernel = NetlinkNetworkSource(overrides: overrides, sysClassNet: sysClassNet, logger: logger)
                do {
                    try await kernel.start()
                } catch {
                    logger.warning(
                        "cannot listen to rtnetlink; NetworkManager's reading is not checked against the kernel's routes",
                        metadata: ["error": "\(error)"]
                    )
                    logger.info("network source: NetworkManager", metadata: ["bus": "\(bus)"])
                    return nm
                }
                let checked = KernelCheckedNetworkSource(manager: nm, kernel: kernel, logger: logger)
                try? await checked.start()
                logger.info("network source: NetworkManager, checked against rtnetlink", metadata: ["bus": "\(bus)"])
                return checked
            } catch {
                logger.warning(
                    "NetworkManager is on the bus but could not be read; using rtnetlink",
                    metadata: ["error": "\(error)"]
                )
                await nm.stop()
            }
        }
        let netlink = NetlinkNetworkSource(overrides: overrides, sysClassNet: sysClassNet, logger: logger)
        do {
            try await netlink.start()
        } catch {
            logger.warning("cannot listen to rtnetlink; connectivity stays unknown", metadata: ["error": "\(error)"])
        }
        logger.info("network source: rtnetlink")
        return netlink
    }
}
