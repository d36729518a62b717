import Foundation

/// One reading of both clocks for one input of the dispatcher: `now` on the scheduling time
/// line (`SchedulingTimeline`), where waits are measured, and `wall` as the wall clock shows it,
/// which local-time rules and the age of a pressure reading follow.
public struct DispatchInstant: Sendable, Equatable {
    public var now: Date
    public var wall: Date

    public init(now: Date, wall: Date) {
        self.now = now
        self.wall = wall
    }

    /// Both clocks at one time (they agree until the wall clock jumps).
    public init(_ date: Date) { self.init(now: date, wall: date) }
}
