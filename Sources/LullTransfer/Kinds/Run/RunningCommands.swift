import LullCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The process groups of the run jobs running now, by job: what a pause freezes (SIGSTOP) and
/// a resume thaws (SIGCONT), and whose usage is read. A group leaves the table before its leader
/// is reaped, under the same lock the signals are sent under, so a signal never reaches a
/// recycled pid; a reading taken meanwhile is dropped rather than kept for another group.
public final class RunningCommands: Sendable {
    private struct Entry {
        var group: Int32
        var sampled = Sampled()
    }

    /// What readings of a command saw while it ran: floors for its result, since `wait4`'s
    /// rusage misses what it cannot see (a group's processes the leader did not reap, the
    /// memory of several processes at once).
    public struct Sampled: Sendable, Equatable {
        /// The most resident memory the group held at one reading.
        public var memoryPeakBytes: Int64 = 0
        /// The last reading.
        public var last: GroupUsage.Reading?
    }

    private let entries = Mutex<[JobID: Entry]>([:])

    public init() {}

    /// Stops every process of the job's group where it is; false when the job runs no command.
    @discardableResult
    public func freeze(_ id: JobID) -> Bool { signal(id, SIGSTOP) }

    /// Lets a frozen group go on; false when the job runs no command.
    @discardableResult
    public func thaw(_ id: JobID) -> Bool { signal(id, SIGCONT) }

    /// The process group of the job's command, while it runs.
    public func processGroup(of id: JobID) -> Int32? { entries.withLock { $0[id]?.group } }

    func add(_ id: JobID, group: Int32) { entries.withLock { $0[id] = Entry(group: group) } }

    /// Takes the job out of the table; what its readings saw.
    @discardableResult
    func remove(_ id: JobID) -> Sampled? { entries.withLock { $0.removeValue(forKey: id)?.sampled } }

    /// What the job's command uses now (one pass over /proc); nil when it runs none.
    public func usage(of id: JobID) -> CommandUsage? {
        guard let group = processGroup(of: id) else { return nil }
        return usages(of: [id: group])[id]
    }

    /// What every running command uses now, from one pass over /proc for all of them. The CPU
    /// share is left to the caller, which knows when it read last.
    public func usages() -> [JobID: CommandUsage] {
        usages(of: entries.withLock { $0.mapValues(\.group) })
    }

    private func usages(of groups: [JobID: Int32]) -> [JobID: CommandUsage] {
        guard !groups.isEmpty else { return [:] }
        let readings = GroupUsage.read(groups: Set(groups.values))
        return entries.withLock { entries in
            var usages: [JobID: CommandUsage] = [:]
            for (id, group) in groups {
                guard let reading = readings[group], var entry = entries[id], entry.group == group else { continue }
                entry.sampled.memoryPeakBytes = max(entry.sampled.memoryPeakBytes, reading.memoryBytes)
                entry.sampled.last = reading
                entries[id] = entry
                usages[id] = CommandUsage(
                    cpuSeconds: reading.cpuSeconds,
                    cpuPercent: nil,
                    memoryBytes: reading.memoryBytes,
                    ioReadBytes: reading.ioReadBytes,
                    ioWriteBytes: reading.ioWriteBytes
                )
            }
            return usages
        }
    }

    private func signal(_ id: JobID, _ number: Int32) -> Bool {
        entries.withLock { entries in
            guard let group = entries[id]?.group else { return false }
            return kill(-group, number) == 0
        }
    }
}
