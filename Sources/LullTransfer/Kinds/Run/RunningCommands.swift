import LullCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The process groups of the run jobs running now, by job: what a pause freezes (SIGSTOP) and
/// a resume thaws (SIGCONT). A group leaves the table before its leader is reaped, under the
/// same lock the signals are sent under, so a signal never reaches a recycled pid.
public final class RunningCommands: Sendable {
    private let groups = Mutex<[JobID: Int32]>([:])
    /// Each job's reading the CPU share is measured from, and the share found then.
    private let lastReading = Mutex<[JobID: (cpu: Double, at: Double, percent: Double?)]>([:])

    public init() {}

    /// Stops every process of the job's group where it is; false when the job runs no command.
    @discardableResult
    public func freeze(_ id: JobID) -> Bool { signal(id, SIGSTOP) }

    /// Lets a frozen group go on; false when the job runs no command.
    @discardableResult
    public func thaw(_ id: JobID) -> Bool { signal(id, SIGCONT) }

    /// The process group of the job's command, while it runs.
    public func processGroup(of id: JobID) -> Int32? { groups.withLock { $0[id] } }

    func add(_ id: JobID, group: Int32) { groups.withLock { $0[id] = group } }
    func remove(_ id: JobID) {
        _ = groups.withLock { $0.removeValue(forKey: id) }
        _ = lastReading.withLock { $0.removeValue(forKey: id) }
    }

    /// What the job's command uses now; nil when it runs none.
    public func usage(of id: JobID) -> CommandUsage? {
        guard let group = processGroup(of: id), let reading = GroupUsage.read(group: group) else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let at = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        // Against a reading at least a second old, so two looks in quick succession still say
        // something: a closer one answers with the share measured last.
        let percent = lastReading.withLock { readings -> Double? in
            guard let previous = readings[id] else {
                readings[id] = (reading.cpuSeconds, at, nil)
                return nil
            }
            guard at - previous.at >= 1 else { return previous.percent }
            let share = max(0, reading.cpuSeconds - previous.cpu) / (at - previous.at) * 100
            readings[id] = (reading.cpuSeconds, at, share)
            return share
        }
        return CommandUsage(cpuSeconds: reading.cpuSeconds, cpuPercent: percent, memoryBytes: reading.memoryBytes)
    }

    private func signal(_ id: JobID, _ number: Int32) -> Bool {
        groups.withLock { groups in
            guard let group = groups[id] else { return false }
            return kill(-group, number) == 0
        }
    }
}
