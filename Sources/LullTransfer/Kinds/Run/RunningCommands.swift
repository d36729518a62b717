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
        /// The command's cgroup, where it has one: what a pause freezes and a reading counts.
        var cgroup: JobCgroup?
        /// Told of a freeze and a thaw, so the attempt's deadline does not count the pause.
        var supervisor: ProcessSupervisor?
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

    func add(_ id: JobID, group: Int32, cgroup: JobCgroup? = nil, supervisor: ProcessSupervisor? = nil) {
        entries.withLock { $0[id] = Entry(group: group, cgroup: cgroup, supervisor: supervisor) }
    }

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
        var readings = read(groups)
        return entries.withLock { entries in
            var usages: [JobID: CommandUsage] = [:]
            for (id, group) in groups {
                guard let reading = readings.removeValue(forKey: id), var entry = entries[id], entry.group == group
                else { continue }
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

    /// One pass over /proc for all commands: a command with a cgroup counts the processes in it,
    /// with its CPU (and memory and I/O, where those controllers are on) as the kernel counted
    /// them there; any other counts its process group.
    private func read(_ groups: [JobID: Int32]) -> [JobID: GroupUsage.Reading] {
        let cgroups = entries.withLock { entries in
            groups.keys.reduce(into: [JobID: JobCgroup]()) { found, id in found[id] = entries[id]?.cgroup }
        }
        var member: [Int32: JobID] = [:]
        for (id, cgroup) in cgroups { for pid in cgroup.processes() { member[pid] = id } }
        var byGroup: [Int32: JobID] = [:]
        for (id, group) in groups where cgroups[id] == nil { byGroup[group] = id }
        var readings = GroupUsage.read { pid, group in member[pid] ?? byGroup[group] }
        for (id, cgroup) in cgroups {
            guard let counted = cgroup.usage() else { continue }
            var reading = readings[id] ?? GroupUsage.Reading()
            reading.cpuSeconds = counted.cpuSeconds ?? reading.cpuSeconds
            reading.memoryBytes = counted.memoryBytes ?? reading.memoryBytes
            if let read = counted.ioReadBytes, let written = counted.ioWriteBytes {
                (reading.ioReadBytes, reading.ioWriteBytes) = (read, written)
            }
            readings[id] = reading
        }
        return readings
    }

    /// A cgroup is frozen whole (`cgroup.freeze`); a process group is sent the signal.
    private func signal(_ id: JobID, _ number: Int32) -> Bool {
        entries.withLock { entries in
            guard let entry = entries[id] else { return false }
            let done =
                if let cgroup = entry.cgroup, cgroup.freeze(number == SIGSTOP) { true } else {
                    kill(-entry.group, number) == 0
                }
            if done { number == SIGSTOP ? entry.supervisor?.froze() : entry.supervisor?.thawed() }
            return done
        }
    }
}
