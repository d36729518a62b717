import LullCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The units of the run jobs running now on the systemd host, by job, with the usage read last
/// and the highest memory seen (a manager older than systemd 255 has no peak of its own).
public final class RunningUnits: Sendable {
    private struct Entry {
        var unit: String
        var deadline: UnitDeadline?
        var usage: ServiceUsage?
        var cpuPercent: Double?
        var readAt: Double?
    }

    private let entries = Mutex<[JobID: Entry]>([:])
    /// Units carry `User=`: the manager is the system's, not the owner's own.
    public let isSystemManager: Bool

    public init(isSystemManager: Bool) {
        self.isSystemManager = isSystemManager
    }

    public func unit(of id: JobID) -> String? { entries.withLock { $0[id]?.unit } }

    /// The total timeout of the job's unit, where lulld keeps one.
    func deadline(of id: JobID) -> UnitDeadline? { entries.withLock { $0[id]?.deadline } }

    func add(_ id: JobID, unit: String, deadline: UnitDeadline?) {
        entries.withLock { $0[id] = Entry(unit: unit, deadline: deadline) }
    }
    func remove(_ id: JobID) { _ = entries.withLock { $0.removeValue(forKey: id) } }

    /// Keeps a reading, with the CPU share since the one before and the memory peak so far.
    func record(_ usage: ServiceUsage, of id: JobID) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let at = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        entries.withLock { entries in
            guard var entry = entries[id] else { return }
            var reading = usage
            let peak = [entry.usage?.memoryPeakBytes, usage.memoryPeakBytes, usage.memoryBytes].compactMap { $0 }.max()
            reading.memoryPeakBytes = peak
            if let previous = entry.usage?.cpuSeconds, let cpu = usage.cpuSeconds, let then = entry.readAt, at > then {
                entry.cpuPercent = max(0, cpu - previous) / (at - then) * 100
            }
            entry.usage = reading
            entry.readAt = at
            entries[id] = entry
        }
    }

    /// The highest memory seen while the job's unit ran.
    func memoryPeak(of id: JobID) -> Int64? { entries.withLock { $0[id]?.usage?.memoryPeakBytes } }

    public func usage(of id: JobID) -> CommandUsage? {
        entries.withLock { entries in entries[id].flatMap(Self.commandUsage) }
    }

    /// The last reading of every running unit.
    public func usages() -> [JobID: CommandUsage] {
        entries.withLock { entries in entries.compactMapValues(Self.commandUsage) }
    }

    private static func commandUsage(_ entry: Entry) -> CommandUsage? {
        guard let usage = entry.usage else { return nil }
        return CommandUsage(
            cpuSeconds: usage.cpuSeconds ?? 0,
            cpuPercent: entry.cpuPercent,
            memoryBytes: usage.memoryBytes ?? 0,
            ioReadBytes: usage.ioReadBytes,
            ioWriteBytes: usage.ioWriteBytes
        )
    }
}
