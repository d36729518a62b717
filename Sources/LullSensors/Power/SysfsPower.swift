import LullCore

/// One entry of `/sys/class/power_supply`, with the attributes Lull reads.
public struct PowerSupplyEntry: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Mains, USB (Type-C, PD, charger), Wireless charging: something that powers the machine when online.
        case mains
        case battery
        case ups
        case other(String)
    }

    public var name: String
    public var kind: Kind
    public var online: Bool?
    public var present: Bool?
    public var capacity: Double?
    public var capacityLevel: String?
    public var status: String?
    /// `System` (default when absent), `Device` (a peripheral's own battery) or `Unknown`.
    public var scope: String?
    public var energyNow: Int64?
    public var energyFull: Int64?
    public var chargeNow: Int64?
    public var chargeFull: Int64?

    public init(
        name: String,
        kind: Kind,
        online: Bool? = nil,
        present: Bool? = nil,
        capacity: Double? = nil,
        capacityLevel: String? = nil,
        status: String? = nil,
        scope: String? = nil,
        energyNow: Int64? = nil,
        energyFull: Int64? = nil,
        chargeNow: Int64? = nil,
        chargeFull: Int64? = nil
    ) {
        self.name = name
        self.kind = kind
        self.online = online
        self.present = present
        self.capacity = capacity
        self.capacityLevel = capacityLevel
        self.status = status
        self.scope = scope
        self.energyNow = energyNow
        self.energyFull = energyFull
        self.chargeNow = chargeNow
        self.chargeFull = chargeFull
    }

    /// A peripheral's battery (Bluetooth mouse, game pad): says nothing about the machine.
    public var isPeripheral: Bool { scope?.lowercased() == "device" }
}

/// Reads `/sys/class/power_supply` and turns it into a `PowerState`.
public enum SysfsPowerReader {
    /// Every entry under `root` (sorted by name); unreadable entries are skipped.
    public static func entries(root: String) -> [PowerSupplyEntry] {
        SysFiles.list(root).compactMap { name in
            let dir = SysFiles.join(root, name)
            guard let type = SysFiles.read(SysFiles.join(dir, "type")) else { return nil }
            func attribute(_ file: String) -> String? { SysFiles.read(SysFiles.join(dir, file)) }
            func number(_ file: String) -> Int64? { attribute(file).flatMap { Int64($0) } }
            return PowerSupplyEntry(
                name: name,
                kind: kind(of: type),
                online: number("online").map { $0 != 0 },
                present: number("present").map { $0 != 0 },
                capacity: attribute("capacity").flatMap { Double($0) },
                capacityLevel: attribute("capacity_level"),
                status: attribute("status"),
                scope: attribute("scope"),
                energyNow: number("energy_now"),
                energyFull: number("energy_full"),
                chargeNow: number("charge_now"),
                chargeFull: number("charge_full")
            )
        }
    }

    static func kind(of type: String) -> PowerSupplyEntry.Kind {
        switch type {
        case "Battery": .battery
        case "UPS": .ups
        case "Mains", "Wireless", "BrickID": .mains
        case _ where type.hasPrefix("USB"): .mains
        default: .other(type)
        }
    }

    /// The machine's power state from its supplies.
    ///
    /// - Peripheral supplies (`scope=Device`) and absent batteries (`present=0`) are ignored.
    /// - Any mains-like supply online → on AC, whatever the batteries say.
    /// - A UPS that reports `Discharging` (or `online=0`) → on battery: the mains behind it failed.
    /// - Mains entries exist but none is online, and there is a battery → on battery.
    /// - No mains entry: on battery only if a battery says `Discharging`.
    /// - No battery, no UPS and no mains → on AC (a desktop or a VM).
    /// - Several batteries combine by energy (or charge) when every one reports it, else by
    ///   the mean of their capacities.
    public static func state(from all: [PowerSupplyEntry], lowBatteryPercent: Double = 20) -> PowerState {
        let entries = all.filter { !$0.isPeripheral && $0.present != false }
        let mains = entries.filter { $0.kind == .mains }
        let batteries = entries.filter { $0.kind == .battery }
        let upses = entries.filter { $0.kind == .ups }

        let mainsOnline = mains.contains { $0.online == true }
        let upsOnBattery = upses.contains { $0.status == "Discharging" || $0.online == false }
        let batteryDischarging = batteries.contains { $0.status == "Discharging" }

        let onBattery: Bool
        if upsOnBattery {
            onBattery = true
        } else if mainsOnline {
            onBattery = false
        } else if !mains.isEmpty {
            onBattery = !batteries.isEmpty
        } else {
            onBattery = batteryDischarging
        }

        var percent: Double? = nil
        var levels: [String] = []
        var sourceNames: [String] = []
        if !batteries.isEmpty {
            percent = combinedPercent(batteries)
            levels = batteries.compactMap(\.capacityLevel)
            sourceNames = batteries.map(\.name)
        } else if !upses.isEmpty {
            percent = combinedPercent(upses)
            levels = upses.compactMap(\.capacityLevel)
            sourceNames = upses.map(\.name)
        } else if !mains.isEmpty {
            sourceNames = (mains.filter { $0.online == true }.isEmpty ? mains : mains.filter { $0.online == true }).map(
                \.name
            )
        }

        let levelLow = levels.contains { $0 == "Low" || $0 == "Critical" }
        let percentLow = percent.map { $0 <= lowBatteryPercent } ?? false
        let lowPower = onBattery && (levelLow || percentLow)

        let source =
            sourceNames.isEmpty
            ? "sysfs (no battery or mains entry: on AC)"
            : "sysfs " + sourceNames.joined(separator: "+")
        return PowerState(onBattery: onBattery, batteryPercent: percent, lowPower: lowPower, source: source)
    }

    public static func state(root: String, lowBatteryPercent: Double = 20) -> PowerState {
        state(from: entries(root: root), lowBatteryPercent: lowBatteryPercent)
    }

    /// Several batteries are weighted by what they hold; one gives its `capacity`, or without
    /// that file (some drivers have none) the same ratio of what it holds to what it can.
    static func combinedPercent(_ supplies: [PowerSupplyEntry]) -> Double? {
        if supplies.count > 1, let held = heldPercent(supplies) { return held }
        let capacities = supplies.compactMap(\.capacity)
        guard !capacities.isEmpty else { return heldPercent(supplies) }
        return clampPercent(capacities.reduce(0, +) / Double(capacities.count))
    }

    /// Energy now over energy full, summed over all the batteries, else the same in charge;
    /// nil unless every battery has the pair.
    private static func heldPercent(_ supplies: [PowerSupplyEntry]) -> Double? {
        guard !supplies.isEmpty else { return nil }
        let energies = supplies.compactMap { s in s.energyNow.flatMap { now in s.energyFull.map { (now, $0) } } }
        if energies.count == supplies.count {
            let full = energies.reduce(0) { $0 + $1.1 }
            if full > 0 { return clampPercent(100 * Double(energies.reduce(0) { $0 + $1.0 }) / Double(full)) }
        }
        let charges = supplies.compactMap { s in s.chargeNow.flatMap { now in s.chargeFull.map { (now, $0) } } }
        if charges.count == supplies.count {
            let full = charges.reduce(0) { $0 + $1.1 }
            if full > 0 { return clampPercent(100 * Double(charges.reduce(0) { $0 + $1.0 }) / Double(full)) }
        }
        return nil
    }

    static func clampPercent(_ value: Double) -> Double {
        min(100, max(0, value))
    }
}
