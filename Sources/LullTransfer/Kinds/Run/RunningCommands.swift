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
    func remove(_ id: JobID) { _ = groups.withLock { $0.removeValue(forKey: id) } }

    private func signal(_ id: JobID, _ number: Int32) -> Bool {
        groups.withLock { groups in
            guard let group = groups[id] else { return false }
            return kill(-group, number) == 0
        }
    }
}
