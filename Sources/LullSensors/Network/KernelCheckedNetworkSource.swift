import Logging
import LullCore

/// NetworkManager's reading where it has one, the kernel's routes where it has none. A link
/// NetworkManager does not manage (on Debian, one set up in `/etc/network/interfaces`) leaves
/// it saying there is no connectivity while that link carries the traffic; every job needing
/// the network then waited `offline` for as long as both ran. So when NetworkManager says
/// offline and the kernel has a default route through a link that is up, or when NetworkManager
/// has left the bus, the kernel's reading (rtnetlink) is the one published.
public final class KernelCheckedNetworkSource: NetworkSource {
    public let manager: NetworkManagerSource
    public let kernel: any NetworkSource
    private let merged: MergedReading<NetworkReading>

    /// Both sources are started by the caller; this one follows them.
    public init(manager: NetworkManagerSource, kernel: any NetworkSource, logger: Logger) {
        self.manager = manager
        self.kernel = kernel
        merged = MergedReading(.unknown) {
            Self.reading(manager: manager.current, managerOnBus: manager.isOnBus, kernel: kernel.current)
        } changed: { reading in
            logger.debug(
                "network changed",
                metadata: ["connectivity": "\(reading.state.connectivity)", "source": "\(reading.state.source)"]
            )
        }
    }

    public var current: NetworkReading { merged.broadcaster.current }
    public func changes() -> AsyncStream<NetworkReading> { merged.broadcaster.changes() }
    public func values() -> AsyncStream<NetworkReading> { merged.broadcaster.values() }

    public func start() async throws { merged.follow(manager.values(), kernel.values()) }

    public func stop() async {
        merged.finish()
        await manager.stop()
        await kernel.stop()
    }

    /// NetworkManager's reading unless it is off the bus, or says offline while the kernel has
    /// a working default route. Its other answers stand: its `unknown` (checks disabled, a
    /// portal) may carry what it knows of metering, which the kernel cannot tell.
    static func reading(manager: NetworkReading, managerOnBus: Bool, kernel: NetworkReading) -> NetworkReading {
        var reading = kernel
        if !managerOnBus {
            reading.state.source += "; NetworkManager not on the bus"
            return reading
        }
        guard manager.state.connectivity == .offline, kernel.state.connectivity == .online else { return manager }
        reading.state.source += "; NetworkManager sees no connectivity of its own"
        return reading
    }
}
