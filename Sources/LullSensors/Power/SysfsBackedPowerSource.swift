import Logging
import LullCore
import Synchronization

/// UPower's reading while UPower is there, the kernel's `power_supply` tree's while it is not.
/// UPower leaving the bus (a crash, an upgrade) or lulld losing the bus left the last reading
/// standing for as long as it was gone: unplugged meanwhile, lulld went on as if on AC.
public final class SysfsBackedPowerSource: PowerSource {
    public let upower: UPowerPowerSource
    public let sysfs: SysfsPowerSource
    private let logger: Logger
    private let broadcaster = StateBroadcaster(PowerState.unknown)
    private let following = Mutex<Task<Void, Never>?>(nil)
    /// One merge and publish at a time, so an older merge is never published after a newer one.
    private let merging = Mutex(())

    /// Both sources are started by the caller; this one follows them.
    public init(upower: UPowerPowerSource, sysfs: SysfsPowerSource, logger: Logger) {
        self.upower = upower
        self.sysfs = sysfs
        self.logger = logger
    }

    public var current: PowerState { broadcaster.current }
    public func changes() -> AsyncStream<PowerState> { broadcaster.changes() }
    public func values() -> AsyncStream<PowerState> { broadcaster.values() }

    public func start() async throws {
        let (upower, sysfs) = (upower, sysfs)
        let task = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in upower.values() { self?.publish() } }
                group.addTask { for await _ in sysfs.values() { self?.publish() } }
            }
        }
        following.withLock { $0 = task }
        publish()
    }

    public func stop() async {
        following.withLock { $0?.cancel() }
        await upower.stop()
        await sysfs.stop()
        broadcaster.finish()
    }

    private func publish() {
        merging.withLock { _ in
            let state = Self.state(upower: upower.current, upowerLive: upower.isOnBus, sysfs: sysfs.current)
            if broadcaster.update(state) {
                logger.debug(
                    "power changed",
                    metadata: ["on_battery": "\(state.onBattery)", "source": "\(state.source)"]
                )
            }
        }
    }

    static func state(upower: PowerState, upowerLive: Bool, sysfs: PowerState) -> PowerState {
        guard !upowerLive else { return upower }
        var state = sysfs
        state.source += "; UPower not on the bus"
        return state
    }
}
