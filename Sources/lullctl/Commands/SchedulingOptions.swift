import ArgumentParser
import Foundation
import LullAPI
import LullClient
import LullCore

/// When and under which conditions a submitted job may run: its constraints (stricter than its
/// class's, never looser), its time window, a periodic schedule and a unit to start at its end.
/// Values are parsed by the `LullClient` argument types, whose messages say what to type.
struct SchedulingOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run only on such a link: any (what the class allows), unmetered (neither metered nor cellular) or not_cellular; none: a command that needs no network (run jobs), which starts offline too.",
            valueName: "network"
        ),
        completion: .list(ChoiceArgument.values(of: JobConstraints.Network.self)),
        transform: { try ChoiceArgument.parse($0, as: JobConstraints.Network.self) }
    )
    var network: JobConstraints.Network?

    @Flag(name: .customLong("requires-ac"), help: "Wait for AC power: never start on battery.")
    var requiresAC = false

    @Flag(
        name: .customLong("requires-idle"),
        help: "Wait until nobody has used the machine for a while (logind idle for the daemon's idle_after)."
    )
    var requiresIdle = false

    @Option(
        name: .customLong("min-battery"),
        help: ArgumentHelp("On battery, wait for at least this charge: \(BatteryPercent.forms).", valueName: "percent"),
        transform: { try BatteryPercent(parsing: $0) }
    )
    var minBattery: BatteryPercent?

    @Option(
        name: .customLong("not-before"),
        // Unconditional, so that "-2h" reaches the parser and is told it is in the past.
        parsing: .unconditional,
        help: ArgumentHelp("Do not start before this time: \(TimeArgument.forms).", valueName: "time"),
        transform: { try TimeArgument(parsing: $0) }
    )
    var notBefore: TimeArgument?

    @Option(
        name: .long,
        parsing: .unconditional,
        help: ArgumentHelp(
            "If the job still waits at this time, start it despite battery, metered or cellular links, pressure and windows (--on-deadline run), or end it expired (--on-deadline expire). A time as for --not-before.",
            valueName: "time"
        ),
        transform: { try TimeArgument(parsing: $0) }
    )
    var deadline: TimeArgument?

    @Option(
        name: .customLong("on-deadline"),
        help: ArgumentHelp("What --deadline does: run (the default) or expire.", valueName: "action"),
        completion: .list(ChoiceArgument.values(of: DeadlineAction.self)),
        transform: { try ChoiceArgument.parse($0, as: DeadlineAction.self) }
    )
    var onDeadline: DeadlineAction?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Make the job periodic: after each run a new occurrence is due this long after it ended, from 15m to 366d (\(DurationArgument.forms)).",
            valueName: "duration"
        ),
        transform: { try DurationArgument(parsing: $0) }
    )
    var every: DurationArgument?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --every: how long before each occurrence is due it may start (the daemon uses at least 5m and 5% of the period).",
            valueName: "duration"
        ),
        transform: { try DurationArgument(parsing: $0) }
    )
    var flex: DurationArgument?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --every: the largest shift of each due time, so jobs submitted together do not all wake at once.",
            valueName: "duration"
        ),
        transform: { try DurationArgument(parsing: $0) }
    )
    var jitter: DurationArgument?

    @Option(
        name: .customLong("max-every"),
        help: ArgumentHelp(
            "With --every: a fetch that finds nothing new (304) doubles the period, up to this; without it the period never stretches.",
            valueName: "duration"
        ),
        transform: { try DurationArgument(parsing: $0) }
    )
    var maxEvery: DurationArgument?

    @Option(
        name: .customLong("on-complete-unit"),
        help: ArgumentHelp("A systemd unit to start when the job ends, such as sync-done.service.", valueName: "unit")
    )
    var onCompleteUnit: String?

    var arguments: SchedulingArguments {
        SchedulingArguments(
            network: network,
            requiresAC: requiresAC,
            requiresIdle: requiresIdle,
            minBattery: minBattery,
            notBefore: notBefore,
            deadline: deadline,
            onDeadline: onDeadline,
            every: every,
            flex: flex,
            jitter: jitter,
            maxEvery: maxEvery,
            onCompleteUnit: onCompleteUnit
        )
    }

    /// Two flags that do not go together are a usage error, reported before anything is sent.
    func validate() throws {
        do throws(ArgumentValueError) {
            try arguments.check(now: Date())
        } catch {
            throw ArgumentParser.ValidationError(error.message)
        }
    }

    /// Fills the submission's scheduling fields; relative times count from `now`.
    func apply(to submission: inout JobSubmission, now: Date = Date()) throws {
        do throws(ArgumentValueError) {
            try arguments.apply(to: &submission, now: now)
        } catch {
            throw ArgumentParser.ValidationError(error.message)
        }
    }
}
