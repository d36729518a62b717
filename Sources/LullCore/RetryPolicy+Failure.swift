import Foundation

extension RetryPolicy {
    /// What a daemon uses when the config says nothing: 8 attempts, 5 s base, 1 h cap.
    public static let standard = RetryPolicy(maxAttempts: 8, backoffBase: 5, backoffCap: 3600)

    /// This policy with a job's own overrides applied.
    public func overridden(by settings: RetrySettings?) -> RetryPolicy {
        guard let settings else { return self }
        return RetryPolicy(
            maxAttempts: settings.maxAttempts ?? maxAttempts,
            backoffBase: settings.baseSeconds ?? backoffBase,
            backoffCap: settings.capSeconds ?? backoffCap
        )
    }

    /// The delay before trying again after attempt number `attempts` failed with `failure`,
    /// or nil when the job fails for good (a permanent failure, or no attempts left).
    public func delay(afterAttempt attempts: Int, failure: JobFailure, unitRandom: Double) -> TimeInterval? {
        guard failure.retryable, allowsRetry(afterAttempt: attempts) else { return nil }
        return backoff(afterAttempt: attempts, unitRandom: unitRandom, retryAfter: failure.retryAfter)
    }
}
