import Foundation

/// How often and how soon a failed job is tried again: exponential backoff with full jitter,
/// capped, honouring a server's `Retry-After`. Pure: the caller supplies the random number.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// Delay scale after the first failure.
    public var backoffBase: TimeInterval
    /// Largest delay (before `Retry-After`).
    public var backoffCap: TimeInterval

    public init(maxAttempts: Int, backoffBase: TimeInterval, backoffCap: TimeInterval) {
        self.maxAttempts = maxAttempts
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
    }

    /// Whether another attempt may follow attempt number `attempt` (1-based).
    public func allowsRetry(afterAttempt attempt: Int) -> Bool { attempt < maxAttempts }

    /// Delay before the next attempt after attempt number `attempt` failed:
    /// `unitRandom · min(cap, base · 2^(attempt−1))` (full jitter), but never less than `retryAfter`
    /// up to `longestRetryAfter`.
    public func backoff(afterAttempt attempt: Int, unitRandom: Double, retryAfter: TimeInterval? = nil) -> TimeInterval
    {
        let exponent = Double(max(0, min(attempt - 1, 62)))
        let ceiling = min(backoffCap, backoffBase * pow(2, exponent))
        let jittered = max(0, min(1, unitRandom)) * ceiling
        return max(jittered, Self.honoured(retryAfter))
    }

    /// The longest `Retry-After` honoured: a week, the largest `backoff_cap`. The value comes from
    /// a server; unbounded, it would put a retry out of any clock's range.
    public static let longestRetryAfter: TimeInterval = 604_800

    static func honoured(_ retryAfter: TimeInterval?) -> TimeInterval {
        guard let retryAfter, retryAfter > 0 else { return 0 }  // NaN fails the test too
        return min(retryAfter, longestRetryAfter)
    }
}
