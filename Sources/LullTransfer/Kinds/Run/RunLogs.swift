import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// Where run jobs' output is kept: `STATE_DIR/run-logs/ID.log`, 0600 in a 0700 directory,
/// readable through `GET /v1/jobs/{id}/output` by the job's owner.
public struct RunLogs: Sendable {
    public let directory: String

    public init(stateDirectory: String) {
        directory = stateDirectory + "/run-logs"
    }

    public func path(of id: JobID) -> String { directory + "/\(id.rawValue).log" }

    /// Where the process group of the job's running command is recorded (`LeftoverGroup`).
    func group(of id: JobID) -> LeftoverGroup { LeftoverGroup(path: directory + "/\(id.rawValue).group") }

    /// Removes a job's log (a cancelled job's), and ends what a crashed daemon left of its command.
    public func remove(_ id: JobID) {
        unlink(path(of: id))
        group(of: id).endIfRunning()
    }
}
