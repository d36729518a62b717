import Foundation
import LullAPI
import LullCore

/// The scheduling flags of `lullctl submit`, parsed, and how they fill a `JobSubmission`.
/// Rules that involve two flags are checked here, naming the flags, before the daemon sees
/// anything; single values were checked when they were parsed.
public struct SchedulingArguments: Sendable, Equatable {
    public var network: JobConstraints.Network?
    public var requiresAC = false
    public var minBattery: BatteryPercent?
    public var notBefore: TimeArgument?
    public var deadline: TimeArgument?
    public var onDeadline: DeadlineAction?
    public var every: DurationArgument?
    public var flex: DurationArgument?
    public var jitter: DurationArgument?
    public var maxEvery: DurationArgument?
    public var onCompleteUnit: String?

    public init(
        network: JobConstraints.Network? = nil, requiresAC: Bool = false, minBattery: BatteryPercent? = nil,
        notBefore: TimeArgument? = nil, deadline: TimeArgument? = nil, onDeadline: DeadlineAction? = nil,
        every: DurationArgument? = nil, flex: DurationArgument? = nil, jitter: DurationArgument? = nil,
        maxEvery: DurationArgument? = nil, onCompleteUnit: String? = nil
    ) {
        self.network = network
        self.requiresAC = requiresAC
        self.minBattery = minBattery
        self.notBefore = notBefore
        self.deadline = deadline
        self.onDeadline = onDeadline
        self.every = every
        self.flex = flex
        self.jitter = jitter
        self.maxEvery = maxEvery
        self.onCompleteUnit = onCompleteUnit
    }

    /// Checks the rules that involve two flags, placing relative times at `now`.
    public func check(now: Date) throws(ArgumentValueError) {
        _ = try resolved(now: now)
    }

    /// Sets the submission's constraint, time, periodic and hook fields from the flags given;
    /// relative times count from `now`. Fields of flags not given are left as they are.
    public func apply(to submission: inout JobSubmission, now: Date) throws(ArgumentValueError) {
        let (notBefore, deadline, periodic) = try resolved(now: now)
        if let network { submission.network = network }
        if requiresAC { submission.requiresAC = true }
        if let minBattery { submission.minBattery = minBattery.percent }
        if let notBefore { submission.notBefore = notBefore }
        if let deadline { submission.deadline = deadline }
        if let onDeadline { submission.onDeadline = onDeadline }
        if let periodic { submission.periodic = periodic }
        if let onCompleteUnit { submission.onCompleteUnit = onCompleteUnit }
    }

    /// The times placed at `now` and the periodic schedule, once the flags agree with each other.
    func resolved(now: Date) throws(ArgumentValueError) -> (notBefore: Date?, deadline: Date?, periodic: PeriodicSchedule?) {
        let notBefore = notBefore?.resolved(now: now)
        let deadline = deadline?.resolved(now: now)
        if onDeadline != nil, deadline == nil {
            throw ArgumentValueError("--on-deadline needs --deadline; give both, e.g. --deadline 2h --on-deadline expire")
        }
        if let notBefore, let deadline, deadline < notBefore {
            throw ArgumentValueError(
                "--deadline \(Self.format(deadline)) is before --not-before \(Self.format(notBefore)); give a deadline after the job may start")
        }
        return (notBefore, deadline, try periodic(hasDeadline: deadline != nil))
    }

    /// The `periodic` object for `--every` and its companions, or nil without `--every`.
    func periodic(hasDeadline: Bool) throws(ArgumentValueError) -> PeriodicSchedule? {
        guard let every else {
            for (flag, value) in [("--flex", flex), ("--jitter", jitter), ("--max-every", maxEvery)] {
                if let value {
                    throw ArgumentValueError("\(flag) applies to periodic jobs only; give --every too, e.g. --every 1h \(flag) \(value)")
                }
            }
            return nil
        }
        let least = DurationArgument(seconds: Int(PeriodicSchedule.minimumEvery))
        let most = DurationArgument(seconds: Int(PeriodicSchedule.maximumEvery))
        guard every.timeInterval >= PeriodicSchedule.minimumEvery, every.timeInterval <= PeriodicSchedule.maximumEvery else {
            throw ArgumentValueError("--every \(every) is out of range; give a period from \(least) to \(most)")
        }
        if hasDeadline {
            throw ArgumentValueError(
                "a periodic job takes its deadline from each period (the end of its flex window); leave out --deadline and --on-deadline with --every")
        }
        for (flag, value) in [("--flex", flex), ("--jitter", jitter)] {
            if let value, value.seconds > every.seconds {
                throw ArgumentValueError("\(flag) \(value) is longer than --every \(every); give at most the period")
            }
        }
        if let maxEvery, maxEvery.seconds < every.seconds || maxEvery.timeInterval > PeriodicSchedule.maximumEvery {
            throw ArgumentValueError("--max-every \(maxEvery) is out of range; give from --every (\(every)) to \(most)")
        }
        return PeriodicSchedule(
            every: every.timeInterval, flex: flex?.timeInterval ?? 0, jitter: jitter?.timeInterval ?? 0,
            maxEvery: maxEvery?.timeInterval)
    }

    static func format(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}
