import Logging
import LullCore
import Synchronization

/// Power from `/sys/class/power_supply`, re-read whenever the kernel sends a `power_supply`
/// uevent. No timer: a machine whose supplies do not change causes no work at all.
public final class SysfsPowerSource: PowerSource {
    public let root: String
    public let lowBatteryPercent: Double
    private let events: (any DeviceEventSource)?
    private let logger: Logger
    private let broadcaster = StateBroadcaster(PowerState.unknown)
    private let listening = Mutex(false)

    /// - Parameters:
    ///   - root: the power_supply class directory (a fixture tree in tests).
    ///   - events: what tells the source to read again; `nil` reads only on `start()`/`refresh()`.
    ///   - lowBatteryPercent: at or below this, on battery counts as `lowPower` (UPower's default "low" is 20%).
    public init(
        root: String = "/sys/class/power_supply",
        events: (any DeviceEventSource)? = KernelUeventMonitor(subsystem: "power_supply"),
        lowBatteryPercent: Double = 20,
        logger: Logger = Logger(label: "lull.sensors.power")
    ) {
        self.root = root
        self.events = events
        self.lowBatteryPercent = lowBatteryPercent
        self.logger = logger
    }

    public var current: PowerState { broadcaster.current }
    public func changes() -> AsyncStream<PowerState> { broadcaster.changes() }
    public func values() -> AsyncStream<PowerState> { broadcaster.values() }

    /// Whether uevents are being received (false when the socket could not be opened).
    public var isListening: Bool { listening.withLock { $0 } }

    public func start() async throws {
        refresh()
        guard let events else { return }
        do {
            try await events.start { [weak self] in self?.refresh() }
            listening.withLock { $0 = true }
        } catch {
            // Without uevents the reading goes stale; say so loudly but keep what we read.
            logger.warning(
                "cannot listen for power_supply uevents; power state will not follow changes",
                metadata: ["error": "\(error)"]
            )
            throw error
        }
    }

    public func stop() async {
        await events?.stop()
        listening.withLock { $0 = false }
        broadcaster.finish()
    }

    /// Reads the tree again now (what a uevent triggers).
    public func refresh() {
        let state = SysfsPowerReader.state(root: root, lowBatteryPercent: lowBatteryPercent)
        if broadcaster.update(state) {
            logger.debug(
                "power changed",
                metadata: [
                    "on_battery": "\(state.onBattery)",
                    "percent": "\(state.batteryPercent.map { "\($0)" } ?? "-")",
                    "source": "\(state.source)",
                ]
            )
        }
    }
}
