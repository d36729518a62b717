import Foundation

/// Percentiles of measured latencies, for tests that record how fast the daemon answered.
public struct LatencySummary: Sendable, CustomStringConvertible {
    public let count: Int
    private let sorted: [Duration]

    public init(_ samples: [Duration]) {
        sorted = samples.sorted()
        count = samples.count
    }

    /// The `fraction` percentile (0.99 for p99), nearest-rank; zero when nothing was measured.
    public func percentile(_ fraction: Double) -> Duration {
        guard !sorted.isEmpty else { return .zero }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    public var max: Duration { sorted.last ?? .zero }

    public static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    public var description: String {
        func ms(_ value: Duration) -> String { String(format: "%.1f ms", Self.milliseconds(value)) }
        return "n=\(count) p50=\(ms(percentile(0.5))) p99=\(ms(percentile(0.99))) max=\(ms(max))"
    }
}
