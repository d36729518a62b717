/// What a person or client may ask of an existing job, and the rules for when it applies.
public enum JobCommand: String, Sendable, CaseIterable {
    case cancel
    case pause
    case resume

    /// The state the job moves to, or why the command does not apply.
    public func target(from state: JobState) -> Result<JobState, JobCommandRefusal> {
        switch (self, state) {
        case (.cancel, .queued), (.cancel, .running), (.cancel, .paused):
            .success(.cancelled)
        case (.pause, .queued), (.pause, .running):
            .success(.paused)
        case (.resume, .paused):
            .success(.queued)
        default:
            .failure(JobCommandRefusal(command: self, state: state))
        }
    }

    /// The event recorded when the command takes effect.
    public var eventType: JobEventType {
        switch self {
        case .cancel: .cancelled
        case .pause: .paused
        case .resume: .resumed
        }
    }
}

/// A command that does not apply to a job in its current state.
public struct JobCommandRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var command: JobCommand
    public var state: JobState

    public init(command: JobCommand, state: JobState) {
        self.command = command
        self.state = state
    }

    public var description: String {
        let allowed = JobState.allCases.filter {
            if case .success = command.target(from: $0) { return true }
            return false
        }
        return
            "cannot \(command.rawValue) a job that is \(state.rawValue); only \(allowed.map(\.rawValue).joined(separator: ", ")) jobs can be \(command.pastTense)"
    }
}

extension JobCommand {
    var pastTense: String {
        switch self {
        case .cancel: "cancelled"
        case .pause: "paused"
        case .resume: "resumed"
        }
    }
}
