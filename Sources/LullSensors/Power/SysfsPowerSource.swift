import Foundation
import Logging
import LullCore
import Synchronization

/// Power from `/sys/class/power_supply`, re-read whenever the kernel sends a `power_supply`
/// uevent, and on battery every `batteryInterval` as well: many embedded controllers send
/// uevents for a plug or unplug but not for each percent, so without the timer the charge
/// stayed at the level it had when unplugged. On AC nothing is read until a uevent.
public final class SysfsPowerSource: PowerSource {
    public let root: String
    public let lowBatteryPercent: Double
    private let events: (any DeviceEventSource)?
    private let batteryInterval: Duration
    private let sleeper: any Sleeper
    private let logger: Logger
    private let broadcaster = StateBroadcaster(PowerState.unknown)
    private let listening = Mutex(false)
    /// One read and publish at a time: a uevent and the timer must not publish out of order.
    private let reading = Mutex(())
    private let onBattery = Mutex<Task<Void, Never>?>(nil)
    /// A timed read is under way on its thread.
    private let timedRead = Mutex(false)

    /// - Parameters:
    ///   - root: the power_supply class directory (a fixture tree in tests).
    ///   - events: what tells the source to read again; `nil` reads only on `start()`/`refresh()`.
    ///   - lowBatteryPercent: at or below this, on battery counts as `lowPower` (UPower's default "low" is 20%).
    ///   - batteryInterval: how often the tree is read while on battery (UPower polls every 30 s).
    ///   - sleeper: how the source waits between those reads; the daemon passes its event-loop sleeper.
    public init(
        root: String = "/sys/class/power_supply",
        events: (any DeviceEventSource)? = KernelUeventMonitor(subsystem: "power_supply"),
        lowBatteryPercent: Double = 20,
        batteryInterval: Duration = .seconds(60),
        sleeper: any Sleeper = TaskSleeper(),
        logger: Logger = Logger(label: "lull.sensors.power")
    ) {
        self.root = root
        self.events = events
        self.lowBatteryPercent = lowBatteryPercent
        self.batteryInterval = batteryInterval
        self.sleeper = sleeper
        self.logger = logger
    }

    public var current: PowerState { broadcaster.current }
    public func changes() -> AsyncStream<PowerState> { broadcaster.changes() }
    public func values() -> AsyncStream<PowerState> { broadcaster.values() }

    /// Whether uevents are being received (false when the socket could not be opened).
    public var isListening: Bool { listening.withLock { $0 } }

    public func start() async throws {
        onBattery.withLock { $0 = followBattery() }
        guard let events else { return refresh() }
        do {
            // Listening first: a plug or unplug between the read and the subscription is not lost.
            try await events.start { [weak self] in self?.refresh() }
            listening.withLock { $0 = true }
            refresh()
        } catch {
            refresh()
            // Without uevents the reading goes stale; say so loudly but keep what we read.
            logger.warning(
                "cannot listen for power_supply uevents; a plug or unplug will not be seen",
                metadata: ["error": "\(error)"]
            )
            throw error
        }
    }

    public func stop() async {
        onBattery.withLock { $0?.cancel() }
        await events?.stop()
        listening.withLock { $0 = false }
        broadcaster.finish()
    }

    /// Reads the tree every `batteryInterval` while on battery; on AC it waits for battery.
    private func followBattery() -> Task<Void, Never> {
        Task { [weak self, broadcaster, sleeper, batteryInterval] in
            while !Task.isCancelled {
                var unplugged = false
                for await state in broadcaster.values() where state.onBattery {
                    unplugged = true
                    break
                }
                guard unplugged else { return }  // stopped
                do { try await sleeper.sleep(for: batteryInterval) } catch { return }
                // On a thread of its own: a battery's attributes come from the embedded
                // controller, which can take a while to answer, and this task runs on the
                // daemon's event loops.
                if broadcaster.current.onBattery, let source = self { source.refreshOnAThread() }
            }
        }
    }

    /// One timed read at a time: a controller that does not answer holds one thread, not one more
    /// a minute.
    private func refreshOnAThread() {
        let begun = timedRead.withLock { busy -> Bool in
            if busy { return false }
            busy = true
            return true
        }
        guard begun else { return }
        Thread.detachNewThread { [self] in
            refresh()
            timedRead.withLock { $0 = false }
        }
    }

    /// Reads the tree again now (what a uevent triggers).
    public func refresh() {
        reading.withLock { _ in publish(SysfsPowerReader.state(root: root, lowBatteryPercent: lowBatteryPercent)) }
    }

    private func publish(_ state: PowerState) {
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
