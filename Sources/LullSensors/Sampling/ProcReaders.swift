import LullCore
import LullKernelFiles

/// One line of a PSI file: `some avg10=0.12 avg60=0.05 avg300=0.01 total=123456`.
public struct PressureLine: Sendable, Equatable, Codable {
    /// Percent of the last 10, 60, 300 seconds with at least one task stalled.
    public var avg10: Double
    public var avg60: Double
    public var avg300: Double
    /// Total stall time, microseconds.
    public var totalMicroseconds: UInt64

    public init(avg10: Double, avg60: Double, avg300: Double, totalMicroseconds: UInt64) {
        self.avg10 = avg10
        self.avg60 = avg60
        self.avg300 = avg300
        self.totalMicroseconds = totalMicroseconds
    }
}

/// `/proc/pressure/{cpu,memory,io}`: `some` always; `full` for memory and io (and for cpu
/// since Linux 5.13, where it is always zero at the system level).
public struct PressureReading: Sendable, Equatable, Codable {
    public var some: PressureLine
    public var full: PressureLine?

    public init(some: PressureLine, full: PressureLine? = nil) {
        self.some = some
        self.full = full
    }

    public static func parse(_ text: String) -> PressureReading? {
        var some: PressureLine? = nil
        var full: PressureLine? = nil
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: " ")
            guard let kind = fields.first else { continue }
            var values: [Substring: Substring] = [:]
            for field in fields.dropFirst() {
                guard let eq = field.firstIndex(of: "=") else { continue }
                values[field[..<eq]] = field[field.index(after: eq)...]
            }
            guard let a10 = values["avg10"].flatMap({ Double($0) }),
                let a60 = values["avg60"].flatMap({ Double($0) }),
                let a300 = values["avg300"].flatMap({ Double($0) }),
                let total = values["total"].flatMap({ UInt64($0) })
            else { continue }
            let parsed = PressureLine(avg10: a10, avg60: a60, avg300: a300, totalMicroseconds: total)
            if kind == "some" { some = parsed } else if kind == "full" { full = parsed }
        }
        return some.map { PressureReading(some: $0, full: full) }
    }
}

/// The aggregate `cpu` line of `/proc/stat`, in clock ticks.
public struct CPUTimes: Sendable, Equatable {
    public var user, nice, system, idle, iowait, irq, softirq, steal: UInt64

    public init(
        user: UInt64,
        nice: UInt64,
        system: UInt64,
        idle: UInt64,
        iowait: UInt64 = 0,
        irq: UInt64 = 0,
        softirq: UInt64 = 0,
        steal: UInt64 = 0
    ) {
        self.user = user
        self.nice = nice
        self.system = system
        self.idle = idle
        self.iowait = iowait
        self.irq = irq
        self.softirq = softirq
        self.steal = steal
    }

    /// guest and guest_nice are already counted in user and nice, so they are left out.
    public var total: UInt64 { user + nice + system + idle + iowait + irq + softirq + steal }
    public var idleTotal: UInt64 { idle + iowait }

    public static func parse(_ text: String) -> CPUTimes? {
        guard let line = text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cpu ") }) else {
            return nil
        }
        let numbers = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard numbers.count >= 4 else { return nil }
        func at(_ i: Int) -> UInt64 { i < numbers.count ? numbers[i] : 0 }
        return CPUTimes(
            user: at(0),
            nice: at(1),
            system: at(2),
            idle: at(3),
            iowait: at(4),
            irq: at(5),
            softirq: at(6),
            steal: at(7)
        )
    }

    /// Busy share (0–1) between two readings; nil when no time passed (or counters went back).
    public static func utilisation(from old: CPUTimes, to new: CPUTimes) -> Double? {
        guard new.total > old.total, new.idleTotal >= old.idleTotal else { return nil }
        let total = Double(new.total - old.total)
        let idle = Double(new.idleTotal - old.idleTotal)
        return min(1, max(0, (total - idle) / total))
    }
}

/// `/proc/meminfo`, the two numbers that matter (bytes).
public struct MemoryInfo: Sendable, Equatable, Codable {
    public var totalBytes: UInt64
    public var availableBytes: UInt64

    public init(totalBytes: UInt64, availableBytes: UInt64) {
        self.totalBytes = totalBytes
        self.availableBytes = availableBytes
    }

    public static func parse(_ text: String) -> MemoryInfo? {
        let values = MeminfoLines.values(of: ["MemTotal", "MemAvailable"], in: text)
        guard let total = values[0], let available = values[1] else { return nil }
        return MemoryInfo(totalBytes: total, availableBytes: available)
    }
}

/// `/proc/loadavg`.
public struct LoadAverage: Sendable, Equatable, Codable {
    public var one, five, fifteen: Double

    public init(one: Double, five: Double, fifteen: Double) {
        self.one = one
        self.five = five
        self.fifteen = fifteen
    }

    public static func parse(_ text: String) -> LoadAverage? {
        let fields = text.split(separator: " ")
        guard fields.count >= 3, let a = Double(fields[0]), let b = Double(fields[1]), let c = Double(fields[2]) else {
            return nil
        }
        return LoadAverage(one: a, five: b, fifteen: c)
    }
}
