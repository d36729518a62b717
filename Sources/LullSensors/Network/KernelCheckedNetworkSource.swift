import Logging
import LullCore
import Synchronization

/// NetworkManager's reading where it has one, the kernel's routes where it has none. A link
/// NetworkManager does not manage (on Debian, one set up in `/etc/network/interfaces`) leaves
/// it saying there is no connectivity while that link carries the traffic; every job needing
/// the network then waited `offline` for as long as both ran. So when NetworkManager says
/// offline and the kernel has a default route through a link that is up, or when NetworkManager
/// has left the bus, the kernel's reading (rtnetlink) is the one published.
public final class KernelCheckedNetworkSource: NetworkSource {
    public let manager: NetworkManagerSource
    public let kernel: any NetworkSource
    private let logger: Logger
    private let broadcaster = StateBroadcaster(NetworkReading.unknown)
    private let following = Mutex<Task<Void, Never>?>(nil)
    /// One merge and publish at a time: a merge of a value read before the other side changed
    /// must not be published after the merge of the change.
    private let merging = Mutex(())

    /// Both sources are started by the caller; this one follows them.
    public init(manager: NetworkManagerSource, kernel: any NetworkSource, logger: Logger) {
        self.manager = manager
        self.kernel = kernel
        self.logger = logger
    }

    public var current: NetworkReading { broadcaster.current }
    public func changes() -> AsyncStream<NetworkReading> { broadcaster.changes() }
    public func values() -> AsyncStream<NetworkReading> { broadcaster.values() }

    public func start() async throws {
        let (manager, kernel) = (manager, kernel)
        // Each stream yields its source's reading first, so the first merge comes at once.
        let task = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in manager.values() { self?.publish() } }
                group.addTask { for await _ in kernel.values() { self?.publish() } }
            }
        }
        following.withLock { $0 = task }
        publish()
    }

    public func stop() async {
        following.withLock { $0?.cancel() }
        await manager.stop()
        await kernel.stop()
        broadcaster.finish()
    }

    private func publish() {
        merging.withLock { _ in
            let reading = Self.reading(manager: manager.current, managerOnBus: manager.isOnBus, kernel: kernel.current)
            log(reading, changed: broadcaster.update(reading))
        }
    }

    private func log(_ reading: NetworkReading, changed: Bool) {
        if changed {
            logger.debug(
                "network changed",
                metadata: ["connectivity": "\(reading.state.connectivity)", "source": "\(reading.state.source)"]
            )
        }
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
