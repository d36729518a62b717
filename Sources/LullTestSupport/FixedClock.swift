import Foundation
import LullCore

/// A clock stopped at one instant.
public struct FixedClock: LullClock {
    public let date: Date
    public init(_ date: Date) { self.date = date }
    public func now() -> Date { date }
}
