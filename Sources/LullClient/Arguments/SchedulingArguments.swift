import Foundation
import LullAPI
import LullCore

/// The scheduling flags of `lullctl submit`, parsed, and how they fill a `JobSubmission`.
/// Rules that involve two flags are checked here, with the daemon's own `TimingRule` but naming
/// the flags, before the daemon sees anything; single values were checked when they were parsed.
public struct SchedulingArguments: Sendable, Equatable {
    public var network: JobConstraints.Network?
    public var requiresAC = false
    public var requiresIdle = false
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
        network: JobConstraints.Network? = nil,
        requiresAC: Bool = false,
        requiresIdle: Bool = false,
        minBattery: BatteryPercent? = nil,
        notBefore: TimeArgument? = nil,
        deadline: TimeArgument? = nil,
        onDeadline: DeadlineAction? = nil,
        every: DurationArgument? = nil,
        flex: DurationArgument? = nil,
        jitter: DurationArgument? = nil,
        maxEvery: DurationArgument? = nil,
        onCompleteUnit: String? = nil
    ) {
        self.network = network
        self.requiresAC = requiresAC
        self.requiresIdle = requiresIdle
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
        if requiresIdle { submission.requiresIdle = true }
        if let minBattery { submission.minBattery = minBattery.percent }
        if let notBefore { submission.notBefore = notBefore }
        if let deadline { submission.deadline = deadline }
        if let onDeadline { submission.onDeadline = onDeadline }
        if let periodic { submission.periodic = periodic }
        if let onCompleteUnit { submission.onCompleteUnit = onCompleteUnit }
    }

    /// The times placed at `now` and the periodic schedule, once the flags agree with each other.
    /// The rules between them are the daemon's own (`TimingRule`); only their wording is the flags'.
    func resolved(
        now: Date
    ) throws(ArgumentValueError) -> (notBefore: Date?, deadline: Date?, periodic: PeriodicSchedule?) {
        let notBefore = notBefore?.resolved(now: now)
        let deadline = deadline?.resolved(now: now)
        // The API takes a deadline already past (a batch after downtime); a person typing one
        // has mistyped it, as "-2h" would say: the job would run at once, or expire.
        if case .at(let typed) = self.deadline, typed < now {
            throw ArgumentValueError(
                "--deadline \(Self.format(typed)) is in the past; give a time to come, or a duration from now such as 2h"
            )
        }
        let periodic = try periodic()
        if let broken = TimingRule.firstBroken(
            notBefore: notBefore,
            deadline: deadline,
            onDeadline: onDeadline,
            periodic: periodic
        ) {
            throw refusal(broken, notBefore: notBefore, deadline: deadline)
        }
        return (notBefore, deadline, periodic)
    }

    /// The `periodic` object for `--every` and its companions, or nil without `--every`.
    func periodic() throws(ArgumentValueError) -> PeriodicSchedule? {
        guard let every else {
            // On the wire these live inside `periodic`, so only the flags can give them alone.
            for (flag, value) in [("--flex", flex), ("--jitter", jitter), ("--max-every", maxEvery)] {
                if let value {
                    throw ArgumentValueError(
                        "\(flag) applies to periodic jobs only; give --every too, e.g. --every 1h \(flag) \(value)"
                    )
                }
            }
            return nil
        }
        var schedule = PeriodicSchedule(
            every: every.timeInterval,
            flex: flex?.timeInterval ?? 0,
            jitter: jitter?.timeInterval ?? 0,
            maxEvery: maxEvery?.timeInterval
        )
        // The initialiser raises a short period to the least allowed: the rules must see the one typed.
        schedule.every = every.timeInterval
        return schedule
    }

    /// A broken rule in the words of the flags that broke it, saying what to type instead.
    private func refusal(_ broken: TimingRule, notBefore: Date?, deadline: Date?) -> ArgumentValueError {
        // A rule breaks only over values that were given, so the fallbacks are never printed.
        func typed(_ value: (any CustomStringConvertible)?) -> String { value.map { "\($0)" } ?? "" }
        let least = DurationArgument(seconds: Int(PeriodicSchedule.minimumEvery))
        let most = DurationArgument(seconds: Int(PeriodicSchedule.maximumEvery))
        return switch broken {
        case .onDeadlineNeedsDeadline:
            ArgumentValueError("--on-deadline needs --deadline; give both, e.g. --deadline 2h --on-deadline expire")
        case .deadlineAfterNotBefore:
            ArgumentValueError(
                "--deadline \(typed(deadline.map(Self.format))) is before --not-before \(typed(notBefore.map(Self.format))); give a deadline after the job may start"
            )
        case .periodInRange:
            ArgumentValueError("--every \(typed(every)) is out of range; give a period from \(least) to \(most)")
        case .flexWithinPeriod:
            ArgumentValueError("--flex \(typed(flex)) is longer than --every \(typed(every)); give at most the period")
        case .jitterWithinPeriod:
            ArgumentValueError(
                "--jitter \(typed(jitter)) is longer than --every \(typed(every)); give at most the period"
            )
        case .maxEveryInRange:
            ArgumentValueError(
                "--max-every \(typed(maxEvery)) is out of range; give from --every (\(typed(every))) to \(most)"
            )
        case .periodicTakesNoDeadline:
            ArgumentValueError(
                "a periodic job takes its deadline from each period (the end of its flex window); leave out --deadline and --on-deadline with --every"
            )
        }
    }

    static func format(_ date: Date) -> String { WireJSON.string(fromISO8601: date) }
}
