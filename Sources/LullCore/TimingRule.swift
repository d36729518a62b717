import Foundation

/// A rule that a job's times and its periodic schedule must meet together. The daemon
/// (`JobSpecValidator`) and `lullctl submit` both ask `firstBroken`, so they refuse the same
/// things; each words the answer in its own terms (the API's field names, the command's flags).
public enum TimingRule: Sendable, Equatable {
    /// `on_deadline` says what happens at a deadline, so it needs one.
    case onDeadlineNeedsDeadline
    /// A job cannot be due before it may start.
    case deadlineAfterNotBefore
    /// A period from `PeriodicSchedule.minimumEvery` to `maximumEvery`.
    case periodInRange
    /// The flex window fits in the period.
    case flexWithinPeriod
    /// The jitter fits in the period.
    case jitterWithinPeriod
    /// A stretched period from the period itself up to `maximumEvery`.
    case maxEveryInRange
    /// A periodic job's deadline is the end of each period, so it takes none of its own.
    case periodicTakesNoDeadline

    /// The first rule the values break, in this order, or nil when they meet every one.
    /// `periodic` is taken as given: build it without `PeriodicSchedule.init`'s raising of a
    /// short period, or a period out of range would pass unseen.
    public static func firstBroken(
        notBefore: Date?,
        deadline: Date?,
        onDeadline: DeadlineAction?,
        periodic: PeriodicSchedule?
    ) -> TimingRule? {
        if onDeadline != nil, deadline == nil { return .onDeadlineNeedsDeadline }
        if let deadline, let notBefore, deadline < notBefore { return .deadlineAfterNotBefore }
        guard let periodic else { return nil }
        if !(PeriodicSchedule.minimumEvery...PeriodicSchedule.maximumEvery).contains(periodic.every) {
            return .periodInRange
        }
        if !(0...periodic.every).contains(periodic.flex) { return .flexWithinPeriod }
        if !(0...periodic.every).contains(periodic.jitter) { return .jitterWithinPeriod }
        if let most = periodic.maxEvery, !(periodic.every...PeriodicSchedule.maximumEvery).contains(most) {
            return .maxEveryInRange
        }
        if deadline != nil || onDeadline != nil { return .periodicTakesNoDeadline }
        return nil
    }

    /// The rule broken, in the API's words: the field it is about and what to send instead.
    public var validationError: ValidationError {
        let year = Int(PeriodicSchedule.maximumEvery)
        return switch self {
        case .onDeadlineNeedsDeadline:
            ValidationError(.invalidValue, field: "on_deadline", "on_deadline needs a deadline")
        case .deadlineAfterNotBefore:
            ValidationError(.invalidValue, field: "deadline", "deadline is before not_before")
        case .periodInRange:
            ValidationError(
                .invalidValue,
                field: "periodic.every_seconds",
                "periodic.every_seconds must be from \(Int(PeriodicSchedule.minimumEvery)) (15 minutes) to \(year) (a year)"
            )
        case .flexWithinPeriod:
            ValidationError(
                .invalidValue,
                field: "periodic.flex_seconds",
                "periodic.flex_seconds must be from 0 to every_seconds"
            )
        case .jitterWithinPeriod:
            ValidationError(
                .invalidValue,
                field: "periodic.jitter_seconds",
                "periodic.jitter_seconds must be from 0 to every_seconds"
            )
        case .maxEveryInRange:
            ValidationError(
                .invalidValue,
                field: "periodic.max_every_seconds",
                "periodic.max_every_seconds must be from every_seconds to \(year) (a year)"
            )
        case .periodicTakesNoDeadline:
            ValidationError(
                .invalidValue,
                field: "deadline",
                "a periodic job takes its deadline from each period (the end of its flex window); leave deadline out"
            )
        }
    }
}
