import Foundation

extension SchedulingPolicy {
    /// The retry policy a job's failures follow: its class's, with the job's own overrides. A
    /// class a reload removed runs as `default`, so it retries as `default` too.
    public func retryPolicy(for spec: JobSpec) -> RetryPolicy {
        let named = classPolicy(named: spec.jobClass) ?? classPolicy(named: JobClassName.default)
        return (named?.retry ?? .standard).overridden(by: spec.retry)
    }
}
