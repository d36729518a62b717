/// What `lulld`'s exit status means. The units stop restarting on the statuses that need an
/// admin first (`RestartPreventExitStatus=`), and `lullctl` names them when the service failed.
public enum LulldExitStatus: Int32, Sendable, CaseIterable {
    /// A clean stop (SIGTERM, SIGINT), or `--check-config` found nothing wrong.
    case success = 0
    /// A failure a restart may cure: the store or the socket failed, another lulld holds the
    /// state directory or the socket.
    case failure = 1
    /// The config file (or one of its drop-ins) is invalid; `lulld --check-config` names each problem.
    case invalidConfiguration = 2
    /// Refused to start until an admin acts: the state directory is unsafe or cannot be made, or
    /// the store was written by a newer lulld.
    case refused = 3
    /// A flag or value lulld does not take (sysexits' `EX_USAGE`).
    case usage = 64

    /// The meaning in a few words, as `lullctl` shows it after "exit status N: ".
    public var meaning: String {
        switch self {
        case .success: "stopped cleanly"
        case .failure: "failed"
        case .invalidConfiguration: "invalid configuration"
        case .refused: "refused to start: the state directory or the store needs an admin"
        case .usage: "invalid command line"
        }
    }

    /// "exit status 2: invalid configuration"; a status lulld does not use is given as a number.
    public static func describe(_ status: Int32) -> String {
        guard let known = LulldExitStatus(rawValue: status) else { return "exit status \(status)" }
        return "exit status \(status): \(known.meaning)"
    }
}
