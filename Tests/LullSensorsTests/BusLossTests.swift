import Foundation
import LullCore
import LullTestSupport
import Testing

@testable import LullSensors

private let upower = "org.freedesktop.UPower"
private let upowerPath = "/org/freedesktop/UPower"

/// What the bus-backed sensors do when the bus, or the service behind a reading, goes away.
/// Before, a lost connection was never made again (every bus reading stood still until lulld
/// restarted), and UPower leaving kept its last reading.
@Suite(.serialized) struct BusLossTests {
    /// The bus restarts under the source (a dbus-broker restart): it connects again, reads
    /// afresh, and follows the changes made on the new bus.
    @Test func aLostBusIsConnectedToAgain() async throws {
        guard MockSystemBus.isAvailable else { try skip("needs dbus-daemon and python3-dbusmock") }
        let bus = try MockSystemBus()
        defer { bus.stop() }
        try bus.startTemplate("upower", busName: upower, parameters: #"{"OnBattery": true}"#)
        let source = UPowerPowerSource(bus: .address(bus.address), reconnectDelay: .milliseconds(100))
        try await source.start()
        #expect(source.current.onBattery)

        let changes = source.changes()
        try bus.restart()
        try bus.setProperty(upower, upowerPath, upower, "OnBattery", "False")
        let (state, _) = try await firstValue(changes, "OnBattery=false read on the new bus", timeout: .seconds(15)) {
            !$0.onBattery && !$0.source.contains("not on the bus")
        }
        #expect(state.source == "UPower DisplayDevice")
        #expect(source.isOnBus)
        await source.stop()
    }

    /// UPower leaves the bus: the kernel's power_supply tree stands in (here: unplugged, while
    /// UPower last said AC), and UPower's reading counts again once it is back.
    @Test func whileUPowerIsGoneSysfsStandsIn() async throws {
        let bus = try PrivateBus.start()
        defer { bus.shutDown() }
        try await withTemporaryDirectory { root in
            writeTree(root, PowerFixtures.laptop(acOnline: false, capacity: 50, status: "Discharging"))
            let first = try await bus.startTemplate("upower", busName: upower, parameters: #"{"OnBattery": false}"#)
            let source = await PowerSourceDiscovery.start(
                bus: .address(bus.address),
                sysfsRoot: root,
                events: ManualDeviceEvents()
            )
            #expect(source is SysfsBackedPowerSource)
            #expect(!source.current.onBattery && source.current.source == "UPower DisplayDevice")

            let changes = source.changes()
            first.stop()
            let (fallback, _) = try await firstValue(changes, "sysfs standing in") { $0.onBattery }
            #expect(fallback.source == "sysfs BAT0; UPower not on the bus", "\(fallback.source)")
            #expect(fallback.batteryPercent == 50)

            try await bus.startTemplate("upower", busName: upower, parameters: #"{"OnBattery": false}"#)
            let (back, _) = try await firstValue(changes, "UPower's reading again") { !$0.onBattery }
            #expect(back.source == "UPower DisplayDevice")
            await source.stop()
        }
    }
}
