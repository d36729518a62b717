import Foundation

/// Wall-clock time as the daemon sees it; tests substitute a clock they move by hand.
public protocol LullClock: Sendable {
    func now() -> Date
}

public struct SystemClock: LullClock {
    public init() {}
    public func now() -> Date { Date() }
}
