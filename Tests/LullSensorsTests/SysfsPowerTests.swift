import Foundation
import LullCore
import LullTestSupport
import Synchronization
import Testing

@testable import LullSensors

/// Fixture power_supply trees in the kernel's real format (one attribute per file).
enum PowerFixtures {
    static func supply(_ name: String, _ attributes: [String: String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: attributes.map { ("\(name)/\($0.key)", $0.value + "\n") })
    }

    /// A ThinkPad-like laptop: ACPI battery BAT0 and mains AC.
    static func laptop(acOnline: Bool, capacity: Int, status: String) -> [String: String] {
        supply(
            "AC",
            [
                "type": "Mains", "online": acOnline ? "1" : "0",
                "uevent": "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=\(acOnline ? 1 : 0)",
            ]
        )
        .merging(
            supply(
                "BAT0",
                [
                    "type": "Battery", "status": status, "present": "1", "capacity": "\(capacity)",
                    "capacity_level": capacity <= 5 ? "Critical" : (capacity <= 15 ? "Low" : "Normal"),
                    "technology": "Li-ion", "energy_now": "\(capacity * 500_000)", "energy_full": "50000000",
                    "manufacturer": "SMP", "model_name": "5B10W13975",
                ]
            )
        ) { $1 }
    }

    /// A desktop: an ACPI mains entry at most, no battery. (Many desktops have no entry at all.)
    static let desktopEmpty: [String: String] = [:]

    /// A machine on a USB-connected UPS (the kernel's hid-ups/upower-less case exposes type UPS).
    static func ups(status: String, capacity: Int, online: Bool) -> [String: String] {
        supply(
            "ups",
            [
                "type": "UPS", "status": status, "capacity": "\(capacity)", "online": online ? "1" : "0",
                "scope": "System",
            ]
        )
    }

    /// A Bluetooth mouse's battery, as hid-input exposes it.
    static let bluetoothMouse = supply(
        "hid-e4:17:d8:aa:bb:cc-battery",
        [
            "type": "Battery", "scope": "Device", "status": "Discharging", "capacity": "35",
            "present": "1", "model_name": "MX Master 3", "online": "1",
        ]
    )
}

@Suite("sysfs power_supply", .timeLimit(.minutes(1)))
struct SysfsPowerTests {
    @Test("laptop on AC: not on battery, battery percentage, source BAT0")
    func laptopOnAC() async {
        await withTemporaryDirectory { root in
            writeTree(root, PowerFixtures.laptop(acOnline: true, capacity: 87, status: "Charging"))
            let state = SysfsPowerReader.state(root: root)
            #expect(state == PowerState(onBattery: false, batteryPercent: 87, lowPower: false, source: "sysfs BAT0"))
        }
    }

    @Test("laptop unplugged: on battery; low at or below the threshold")
    func laptopOnBattery() async {
        await withTemporaryDirectory { root in
            writeTree(root, PowerFixtures.laptop(acOnline: false, capacity: 42, status: "Discharging"))
            #expect(
                SysfsPowerReader.state(root: root)
                    == PowerState(onBattery: true, batteryPercent: 42, lowPower: false, source: "sysfs BAT0")
            )
            writeTree(root, PowerFixtures.laptop(acOnline: false, capacity: 12, status: "Discharging"))
            #expect(SysfsPowerReader.state(root: root).lowPower)
        }
    }

    @Test("laptop at 100% on AC reporting 'Not charging' or 'Full' is on AC")
    func fullOnAC() async {
        await withTemporaryDirectory { root in
            writeTree(root, PowerFixtures.laptop(acOnline: true, capacity: 100, status: "Not charging"))
            #expect(SysfsPowerReader.state(root: root).onBattery == false)
        }
    }

    @Test("desktop: no battery and no mains entry means on AC")
    func desktop() async {
        await withTemporaryDirectory { root in
            writeTree(root, PowerFixtures.desktopEmpty)
            let state = SysfsPowerReader.state(root: root)
            #expect(state.onBattery == false)
            #expect(state.batteryPercent == nil)
            #expect(state.lowPower == false)
            #expect(state.source.hasPrefix("sysfs"))
            // Missing directory altogether (a container without /sys/class/power_supply).
            #expect(SysfsPowerReader.state(root: root + "/missing").onBattery == false)
        }
    }

    @Test("UPS on line, then on battery")
    func ups() async {
        await withTemporaryDirectory { root in
            writeTree(root, PowerFixtures.ups(status: "Full", capacity: 100, online: true))
            #expect(
                SysfsPowerReader.state(root: root)
                    == PowerState(onBattery: false, batteryPercent: 100, lowPower: false, source: "sysfs ups")
            )
            writeTree(root, PowerFixtures.ups(status: "Discharging", capacity: 64, online: false))
            #expect(
                SysfsPowerReader.state(root: root)
                    == PowerState(onBattery: true, batteryPercent: 64, lowPower: false, source: "sysfs ups")
            )
        }
    }

    @Test("a Bluetooth mouse battery (scope=Device) is ignored")
    func bluetoothMouse() async {
        await withTemporaryDirectory { root in
            writeTree(
                root,
                PowerFixtures.laptop(acOnline: true, capacity: 90, status: "Charging").merging(
                    PowerFixtures.bluetoothMouse
                ) { $1 }
            )
            #expect(
                SysfsPowerReader.state(root: root)
                    == PowerState(onBattery: false, batteryPercent: 90, lowPower: false, source: "sysfs BAT0")
            )
        }
        // A desktop whose only battery is the mouse's: on AC, no battery percentage.
        await withTemporaryDirectory { root in
            writeTree(root, PowerFixtures.bluetoothMouse)
            let state = SysfsPowerReader.state(root: root)
            #expect(state.onBattery == false)
            #expect(state.batteryPercent == nil)
        }
    }

    @Test("two batteries combine by energy; an empty bay (present=0) is ignored")
    func twoBatteries() {
        let entries = [
            PowerSupplyEntry(name: "AC", kind: .mains, online: false),
            PowerSupplyEntry(
                name: "BAT0",
                kind: .battery,
                present: true,
                capacity: 100,
                status: "Discharging",
                energyNow: 20_000_000,
                energyFull: 20_000_000
            ),
            PowerSupplyEntry(
                name: "BAT1",
                kind: .battery,
                present: true,
                capacity: 0,
                status: "Discharging",
                energyNow: 0,
                energyFull: 60_000_000
            ),
            PowerSupplyEntry(name: "BAT2", kind: .battery, present: false, capacity: 0),
        ]
        let state = SysfsPowerReader.state(from: entries)
        #expect(state.onBattery)
        #expect(state.batteryPercent == 25)
        #expect(state.source == "sysfs BAT0+BAT1")
    }

    @Test("USB-C charger online counts as mains")
    func usbCharger() {
        let entries = [
            PowerSupplyEntry(
                name: "ucsi-source-psy-USBC000:001",
                kind: SysfsPowerReader.kind(of: "USB"),
                online: true,
                scope: "System"
            ),
            PowerSupplyEntry(name: "BAT0", kind: .battery, capacity: 50, status: "Charging"),
        ]
        #expect(SysfsPowerReader.state(from: entries).onBattery == false)
    }

    @Test("the source re-reads on a uevent and yields the change")
    func refreshOnEvent() async throws {
        try await withTemporaryDirectory { root in
            writeTree(root, PowerFixtures.laptop(acOnline: true, capacity: 80, status: "Charging"))
            let events = ManualDeviceEvents()
            let source = SysfsPowerSource(root: root, events: events)
            try await source.start()
            #expect(source.current.onBattery == false)
            let changes = source.changes()
            writeTree(root, PowerFixtures.laptop(acOnline: false, capacity: 79, status: "Discharging"))
            events.fire()
            let (state, _) = try await firstValue(changes, "on battery") { $0.onBattery }
            #expect(state.batteryPercent == 79)
            await source.stop()
            #expect(events.stopped)
        }
    }

    @Test("one battery without a capacity file gives its energy ratio")
    func oneBatteryWithoutCapacity() {
        let entries = [
            PowerSupplyEntry(name: "AC", kind: .mains, online: false),
            PowerSupplyEntry(
                name: "BAT0",
                kind: .battery,
                present: true,
                status: "Discharging",
                energyNow: 3_000_000,
                energyFull: 50_000_000
            ),
        ]
        let state = SysfsPowerReader.state(from: entries)
        #expect(state.batteryPercent == 6)
        #expect(state.lowPower)
    }

    /// Many embedded controllers send a uevent for a plug or unplug and none for each percent.
    @Test("on battery the tree is read every interval, without a uevent; on AC it is not")
    func batteryIsReadEveryIntervalOnlyOnBattery() async throws {
        try await withTemporaryDirectory { root in
            writeTree(root, PowerFixtures.laptop(acOnline: true, capacity: 90, status: "Charging"))
            let events = ManualDeviceEvents()
            let source = SysfsPowerSource(root: root, events: events, batteryInterval: .milliseconds(100))
            try await source.start()
            // On AC a change the kernel did not announce stays unread over many intervals.
            writeTree(root, PowerFixtures.laptop(acOnline: true, capacity: 91, status: "Charging"))
            try await Task.sleep(for: .milliseconds(600))
            #expect(source.current.batteryPercent == 90)

            var changes = source.changes()
            writeTree(root, PowerFixtures.laptop(acOnline: false, capacity: 80, status: "Discharging"))
            events.fire()
            _ = try await firstValue(changes, "on battery") { $0.onBattery }
            changes = source.changes()
            writeTree(root, PowerFixtures.laptop(acOnline: false, capacity: 15, status: "Discharging"))
            let (low, _) = try await firstValue(changes, "the charge read without a uevent") {
                $0.batteryPercent == 15
            }
            #expect(low.lowPower)
            await source.stop()
        }
    }

    @Test("uevent messages are parsed and filtered by subsystem")
    func ueventParsing() {
        let message = Array(
            "change@/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT0\0ACTION=change\0DEVPATH=/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT0\0SUBSYSTEM=power_supply\0POWER_SUPPLY_NAME=BAT0\0POWER_SUPPLY_STATUS=Discharging\0SEQNUM=4242\0"
                .utf8
        )
        #expect(KernelUeventMonitor.uevent(message[...], concerns: "power_supply"))
        #expect(!KernelUeventMonitor.uevent(message[...], concerns: "net"))
        let udev = Array("libudev\0\u{fe}\u{ed}\u{ca}\u{fe}SUBSYSTEM=power_supply\0".utf8)
        #expect(!KernelUeventMonitor.uevent(udev[...], concerns: "power_supply"))
    }

    @Test("a real NETLINK_KOBJECT_UEVENT socket delivers a synthetic uevent")
    func kernelUevents() async throws {
        // Any subsystem works the same way; `net`'s loopback accepts a synthetic "change"
        // uevent when we are root. Nothing else on the machine changes.
        let trigger = "/sys/class/net/lo/uevent"
        guard getuid() == 0, access(trigger, W_OK) == 0 else {
            try skip("needs root and a writable \(trigger) to trigger a synthetic uevent")
        }
        let monitor = KernelUeventMonitor(subsystem: "net")
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        try await monitor.start { continuation.yield() }
        let start = ContinuousClock.now
        try "change".write(toFile: trigger, atomically: false, encoding: .utf8)
        let (_, latency) = try await firstValue(stream, "a net uevent", since: start) { _ in true }
        print("uevent latency: \(milliseconds(latency)) ms")
        await monitor.stop()
    }
}

/// Device events fired by the test.
final class ManualDeviceEvents: DeviceEventSource {
    private let handler = Mutex<(@Sendable () -> Void)?>(nil)
    private let stoppedFlag = Mutex(false)

    func start(_ onEvent: @escaping @Sendable () -> Void) async throws {
        handler.withLock { $0 = onEvent }
    }

    func stop() async {
        handler.withLock { $0 = nil }
        stoppedFlag.withLock { $0 = true }
    }

    var stopped: Bool { stoppedFlag.withLock { $0 } }

    func fire() {
        handler.withLock { $0 }?()
    }
}
