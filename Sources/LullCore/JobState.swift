/// Where a job is in its life. `running` goes back to `queued` on retry, preemption or a restart.
public enum JobState: String, Sendable, Codable, CaseIterable {
    case queued
    case running
    case paused
    case succeeded
    case failed
    case cancelled
    case expired

    /// A terminal job never changes state again.
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled, .expired: true
        case .queued, .running, .paused: false
        }
    }
}
