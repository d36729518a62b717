import Foundation
import LullCore
import LullTransfer
import TOMLKit

// `[hooks]`: the units jobs may start when they end.

extension ConfigLoader.Reader {
    mutating func readHooks(_ table: TOMLTable) {
        for key in table.keys.sorted() {
            guard let value = entry(table, key, section: "hooks") else { continue }
            switch key {
            case "manager":
                switch value.string {
                case "auto": config.hooks.manager = .auto
                case "system": config.hooks.manager = .system
                case "user": config.hooks.manager = .user
                case let text? where text.hasPrefix("unix:"): config.hooks.manager = .address(text)
                default:
                    problem(
                        section: "hooks",
                        key: key,
                        "expected \"auto\", \"system\", \"user\" or a D-Bus address such as \"unix:path=/run/dbus/system_bus_socket\""
                    )
                }
            case "allowed_units":
                guard let array = value.array, array.allSatisfy({ $0.string != nil }) else {
                    problem(
                        section: "hooks",
                        key: key,
                        "expected an array of unit names such as [\"sync-done.service\", \"backup@.service\"]"
                    )
                    continue
                }
                let names = array.compactMap(\.string)
                if let bad = names.first(where: { UnitName($0) == nil }) {
                    problem(
                        section: "hooks",
                        key: key,
                        "\"\(bad)\" is not a .service or .target unit name (A-Z a-z 0-9 : _ . - \\ and at most one @)"
                    )
                    continue
                }
                config.hooks.allowedUnits = names
                config.origins["hooks.allowed_units"] = origin("hooks", key)
            default:
                problem(section: "hooks", key: key, "unknown key; known: allowed_units, manager")
            }
        }
    }
}
