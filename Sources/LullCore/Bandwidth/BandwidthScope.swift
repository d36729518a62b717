/// What a bandwidth limit covers: every job of the daemon, every job of one class, or one job.
/// Each scope with a limit has one token bucket, shared by all the running jobs under it.
public enum BandwidthScope: Sendable, Hashable, CustomStringConvertible {
    case daemon
    case jobClass(String)
    case job(JobID)

    /// Where the limit is set, in the words of the config and the API.
    public var description: String {
        switch self {
        case .daemon: "[limits] max_bytes_per_second"
        case .jobClass(let name): "[classes.\(name)] max_bytes_per_second"
        case .job(let id): "job \(id.rawValue) max_bytes_per_second"
        }
    }
}
