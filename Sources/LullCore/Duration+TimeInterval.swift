import Foundation

extension Duration {
    /// The duration in seconds, as `Date` arithmetic wants it.
    public var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
