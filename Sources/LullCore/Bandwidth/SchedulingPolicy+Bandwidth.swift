import Foundation

extension SchedulingPolicy {
    /// The limits a job's bytes count against at `date`, each with its rate then: the daemon's,
    /// its class's (a class the policy does not know is `default`, as for scheduling) and its own.
    public func bandwidthLimits(
        of job: JobID,
        className: String,
        ownRate: Int64?,
        at date: Date,
        localTime: LocalTime
    ) -> [BandwidthScope: Int64] {
        var limits: [BandwidthScope: Int64] = [:]
        limits[.daemon] = bandwidth.rate(at: date, localTime: localTime)
        if let policy = classPolicy(named: className) ?? classPolicy(named: JobClassName.default) {
            limits[.jobClass(policy.name)] = policy.bandwidth.rate(at: date, localTime: localTime)
        }
        limits[.job(job)] = ownRate
        return limits
    }

    /// The next time after `date` at which a daemon or class window opens or closes; nil when
    /// no rate is on a schedule.
    public func nextBandwidthChange(after date: Date, localTime: LocalTime) -> Date? {
        ([bandwidth] + classes.map(\.bandwidth)).compactMap { $0.nextChange(after: date, localTime: localTime) }.min()
    }
}
