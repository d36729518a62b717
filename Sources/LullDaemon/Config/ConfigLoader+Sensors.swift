import Foundation
import LullCore
import LullTransfer
import TOMLKit

// `[sensors]`: where the daemon reads power, network and idleness from.

extension ConfigLoader.Reader {
    mutating func readSensors(_ table: TOMLTable) {
        for key in table.keys.sorted() {
            guard let value = entry(table, key, section: "sensors") else { continue }
            switch key {
            case "bus":
                // A typo ("session") would otherwise be an address that never connects, quietly
                // turning off UPower, NetworkManager, logind's idle time and the sleep inhibitor.
                guard let text = value.string, text == "system" || Self.isBusAddress(text) else {
                    problem(
                        section: "sensors",
                        key: key,
                        "expected \"system\" or a D-Bus address starting with a transport (unix:, tcp:, unixexec:, x-machine-unix:), such as \"unix:path=/run/dbus/system_bus_socket\"\(value.string.map { ", not \"\($0)\"" } ?? "")"
                    )
                    continue
                }
                config.sensors.bus = text == "system" ? .system : .address(text)
            case "power_supply_root":
                config.sensors.powerSupplyRoot =
                    absolutePath(value, "sensors", key) ?? config.sensors.powerSupplyRoot
            case "proc_root":
                config.sensors.procRoot = absolutePath(value, "sensors", key) ?? config.sensors.procRoot
            case "idle_after":
                // Read by the scheduler, which compares it with logind's idle time.
                if let v = seconds(value, "sensors", key, SchedulingPolicy.idleAfterRange) {
                    config.policy.idleAfter = ConfiguredLimit(v, origin: origin("sensors", key))
                }
            case "metered_interfaces", "cellular_interfaces":
                guard let array = value.array, array.allSatisfy({ $0.string != nil }) else {
                    problem(
                        section: "sensors",
                        key: key,
                        "expected an array of interface-name patterns such as [\"wwan*\"]"
                    )
                    continue
                }
                let patterns = array.compactMap(\.string)
                if key == "metered_interfaces" {
                    config.sensors.meteredInterfaces = patterns
                } else {
                    config.sensors.cellularInterfaces = patterns
                }
            default:
                problem(
                    section: "sensors",
                    key: key,
                    "unknown key; known: bus, cellular_interfaces, idle_after, metered_interfaces, power_supply_root, proc_root"
                )
            }
        }
    }

    /// Whether `text` is a D-Bus address sd-bus can use: transports separated by `;`, each
    /// `TRANSPORT:key=value,...`.
    static func isBusAddress(_ text: String) -> Bool {
        let transports = ["unix:", "tcp:", "unixexec:", "x-machine-unix:"]
        let parts = text.split(separator: ";")
        return !parts.isEmpty && parts.allSatisfy { part in transports.contains { part.hasPrefix($0) } }
    }
}
