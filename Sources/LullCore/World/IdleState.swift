import Foundation

/// Whether a person is using the machine, as the scheduler sees it: logind's `IdleHint` and
/// `IdleSinceHint`. Whether the machine has been idle *long enough* (`[sensors] idle_after`)
/// is the scheduler's question, asked with its clock.
public struct IdleState: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// Nobody can tell (no logind): a job that requires idle waits.
        case unknown
        /// Someone is using the machine.
        case active
        /// Idle since this time (on the scheduling time line once the dispatcher has it). A
        /// machine without sessions has been idle since it started: `distantPast` will do.
        case idle(since: Date)
    }

    public var state: State
    /// Where this came from, for explanations: "logind IdleHint false", "logind not found".
    public var source: String

    public init(_ state: State, source: String) {
        self.state = state
        self.source = source
    }

    /// Before any sensor has spoken.
    public static let unknown = IdleState(.unknown, source: "not sensed yet")

    /// When the idle period began, while idle.
    public var since: Date? {
        if case .idle(let since) = state { return since }
        return nil
    }

    /// The state's name on the wire and in the logs: "unknown", "active", "idle".
    public var name: String {
        switch state {
        case .unknown: "unknown"
        case .active: "active"
        case .idle: "idle"
        }
    }

    /// The same reading with its time moved by `offset` seconds (placing a wall-clock time on
    /// the scheduling time line).
    public func shifted(by offset: TimeInterval) -> IdleState {
        guard case .idle(let since) = state, offset != 0, since != .distantPast else { return self }
        return IdleState(.idle(since: since.addingTimeInterval(offset)), source: source)
    }
}
