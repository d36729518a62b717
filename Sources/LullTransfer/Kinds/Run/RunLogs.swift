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

    /// Where the process groups of running commands are recorded (`LeftoverGroups`).
    public var groups: String { directory + "/running-groups" }

    /// Removes a job's log (a cancelled job's).
    public func remove(_ id: JobID) {
        unlink(path(of: id))
    }
}
