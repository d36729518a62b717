import Logging
import LullCore

/// UPower's reading while UPower is there, the kernel's `power_supply` tree's while it is not.
/// UPower leaving the bus (a crash, an upgrade) or lulld losing the bus left the last reading
/// standing for as long as it was gone: unplugged meanwhile, lulld went on as if on AC.
public final class SysfsBackedPowerSource: PowerSource {
    public let upower: UPowerPowerSource
    public let sysfs: SysfsPowerSource
    private let merged: MergedReading<PowerState>

    /// Both sources are started by the caller; this one follows them.
    public init(upower: UPowerPowerSource, sysfs: SysfsPowerSource, logger: Logger) {
        self.upower = upower
        self.sysfs = sysfs
        merged = MergedReading(.unknown) {
            Self.state(upower: upower.current, upowerLive: upower.isOnBus, sysfs: sysfs.current)
        } changed: { state in
            logger.debug("power changed", metadata: ["on_battery": "\(state.onBattery)", "source": "\(state.source)"])
        }
    }

    public var current: PowerState { merged.broadcaster.current }
    public func changes() -> AsyncStream<PowerState> { merged.broadcaster.changes() }
    public func values() -> AsyncStream<PowerState> { merged.broadcaster.values() }

    public func start() async throws { merged.follow(upower.values(), sysfs.values()) }

    public func stop() async {
        merged.finish()
        await upower.stop()
        await sysfs.stop()
    }

    static func state(upower: PowerState, upowerLive: Bool, sysfs: PowerState) -> PowerState {
        guard !upowerLive else { return upower }
        var state = sysfs
        state.source += "; UPower not on the bus"
        return state
    }
}
