import Foundation
import LullAPI
import LullClient
import LullCore
import Testing

/// How lullctl's scheduling flags fill a submission, and the rules two flags break together.
@Suite struct SchedulingArgumentsTests {
    static let now = Date(timeIntervalSince1970: 1_795_284_000)

    func submission(_ arguments: SchedulingArguments) throws(ArgumentValueError) -> JobSubmission {
        var submission = JobSubmission(kind: .fetch, url: "http://example.org/f", destination: "/tmp/f")
        try arguments.apply(to: &submission, now: Self.now)
        return submission
    }

    func refusal(_ arguments: SchedulingArguments) -> String? {
        do throws(ArgumentValueError) {
            _ = try submission(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    func wire(_ submission: JobSubmission) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: WireJSON.encoder().encode(submission)) as? [String: Any] ?? [:]
    }

    @Test func everyFlagArrivesInItsWireField() throws {
        let arguments = SchedulingArguments(
            network: try ChoiceArgument.parse("not_cellular"),
            requiresAC: true,
            minBattery: try BatteryPercent(parsing: "30%"),
            notBefore: try TimeArgument(parsing: "1h"),
            deadline: try TimeArgument(parsing: "2026-11-21T21:00:00+01:00"),
            onDeadline: .expire,
            onCompleteUnit: "sync-done.service"
        )
        let filled = try submission(arguments)
        #expect(filled.network == .notCellular)
        #expect(filled.requiresAC == true)
        #expect(filled.minBattery == 30)
        #expect(filled.notBefore == Self.now.addingTimeInterval(3_600))
        #expect(filled.deadline == Self.now.addingTimeInterval(2 * 3_600))
        #expect(filled.onDeadline == .expire)
        #expect(filled.onCompleteUnit == "sync-done.service")
        #expect(filled.periodic == nil)

        let json = try wire(filled)
        #expect(json["network"] as? String == "not_cellular")
        #expect(json["requires_ac"] as? Bool == true)
        #expect(json["min_battery"] as? Double == 30)
        #expect(json["not_before"] as? String == "2026-11-21T19:00:00Z")
        #expect(json["deadline"] as? String == "2026-11-21T20:00:00Z")
        #expect(json["on_deadline"] as? String == "expire")
        #expect(json["on_complete_unit"] as? String == "sync-done.service")

        // What the daemon makes of it: the same constraints, and a spec its validator accepts.
        let decoded = try WireDecoding.decode(JobSubmission.self, from: WireJSON.encoder().encode(filled))
        let spec = try decoded.spec()
        #expect(spec.constraints == JobConstraints(network: .notCellular, requiresAC: true, minBattery: 30))
        try JobSpecValidator(limits: SubmissionLimits()).validate(spec)
    }

    @Test func flagsNotGivenLeaveTheSubmissionAlone() throws {
        let plain = JobSubmission(kind: .fetch, url: "http://example.org/f", destination: "/tmp/f")
        #expect(try submission(SchedulingArguments()) == plain)
        let json = try wire(try submission(SchedulingArguments()))
        for key in [
            "network", "requires_ac", "min_battery", "not_before", "deadline", "on_deadline", "periodic",
            "on_complete_unit",
        ] {
            #expect(json[key] == nil, "\(key) is sent only when its flag is given")
        }
    }

    @Test func everyMakesThePeriodicObject() throws {
        let arguments = SchedulingArguments(
            every: try DurationArgument(parsing: "1h"),
            flex: try DurationArgument(parsing: "10m"),
            jitter: try DurationArgument(parsing: "2m"),
            maxEvery: try DurationArgument(parsing: "4h")
        )
        let filled = try submission(arguments)
        #expect(filled.periodic == PeriodicSchedule(every: 3_600, flex: 600, jitter: 120, maxEvery: 14_400))
        let periodic = try wire(filled)["periodic"] as? [String: Any]
        #expect(periodic?["every_seconds"] as? Double == 3_600)
        #expect(periodic?["flex_seconds"] as? Double == 600)
        #expect(periodic?["max_every_seconds"] as? Double == 14_400)
        try JobSpecValidator(limits: SubmissionLimits()).validate(try filled.spec())

        let bare = try submission(SchedulingArguments(every: try DurationArgument(parsing: "15m")))
        #expect(bare.periodic == PeriodicSchedule(every: 900, flex: 0))
    }

    /// `PeriodicSchedule.init` would quietly make 5 minutes into 15: the flag refuses it instead.
    @Test func aPeriodOutOfRangeIsRefusedNotClamped() throws {
        #expect(
            refusal(SchedulingArguments(every: try DurationArgument(parsing: "5m")))
                == "--every 5m is out of range; give a period from 15m to 366d"
        )
        #expect(
            refusal(SchedulingArguments(every: try DurationArgument(parsing: "367d")))?.contains("from 15m to 366d")
                == true
        )
        #expect(refusal(SchedulingArguments(every: try DurationArgument(parsing: "366d"))) == nil)
    }

    @Test func periodicCompanionsNeedEvery() throws {
        for arguments in [
            SchedulingArguments(flex: try DurationArgument(parsing: "10m")),
            SchedulingArguments(jitter: try DurationArgument(parsing: "1m")),
            SchedulingArguments(maxEvery: try DurationArgument(parsing: "4h")),
        ] {
            let said = refusal(arguments)
            #expect(said?.contains("applies to periodic jobs only; give --every too") == true, "\(said ?? "accepted")")
        }
    }

    @Test func periodicCompanionsStayWithinThePeriod() throws {
        let hour = try DurationArgument(parsing: "1h")
        #expect(
            refusal(SchedulingArguments(every: hour, flex: try DurationArgument(parsing: "2h")))
                == "--flex 2h is longer than --every 1h; give at most the period"
        )
        #expect(
            refusal(SchedulingArguments(every: hour, jitter: try DurationArgument(parsing: "61m")))?.hasPrefix(
                "--jitter 1h1m"
            ) == true
        )
        #expect(
            refusal(SchedulingArguments(every: hour, maxEvery: try DurationArgument(parsing: "30m")))
                == "--max-every 30m is out of range; give from --every (1h) to 366d"
        )
    }

    @Test func aPeriodicJobTakesNoDeadline() throws {
        let said = refusal(
            SchedulingArguments(deadline: try TimeArgument(parsing: "2h"), every: try DurationArgument(parsing: "1h"))
        )
        #expect(said?.contains("leave out --deadline and --on-deadline with --every") == true, "\(said ?? "accepted")")
    }

    @Test func onDeadlineNeedsADeadline() throws {
        #expect(refusal(SchedulingArguments(onDeadline: .run))?.hasPrefix("--on-deadline needs --deadline") == true)
        // lullctl checks before it connects, with the same rules.
        #expect(throws: ArgumentValueError.self) { try SchedulingArguments(onDeadline: .run).check(now: Self.now) }
        try SchedulingArguments(deadline: try TimeArgument(parsing: "1h"), onDeadline: .run).check(now: Self.now)
    }

    @Test func aDeadlineBeforeNotBeforeIsRefused() throws {
        let said = refusal(
            SchedulingArguments(notBefore: try TimeArgument(parsing: "2h"), deadline: try TimeArgument(parsing: "1h"))
        )
        #expect(
            said
                == "--deadline 2026-11-21T19:00:00Z is before --not-before 2026-11-21T20:00:00Z; give a deadline after the job may start"
        )
        // Relative and absolute times compare once both are placed at the same now.
        #expect(
            refusal(
                SchedulingArguments(
                    notBefore: try TimeArgument(parsing: "30m"),
                    deadline: try TimeArgument(parsing: "2026-11-21T18:20:00Z")
                )
            ) != nil
        )
        #expect(
            refusal(
                SchedulingArguments(
                    notBefore: try TimeArgument(parsing: "30m"),
                    deadline: try TimeArgument(parsing: "2026-11-21T18:40:00Z")
                )
            ) == nil
        )
    }

    /// The flags refuse exactly what the daemon would: every combination below goes both through
    /// `SchedulingArguments` and, unchecked, through the daemon's validator, and a refusal by the
    /// flags names the flag behind the field the daemon names.
    @Test func theFlagsRefuseWhatTheDaemonRefuses() throws {
        let flags = [
            "on_deadline": "--on-deadline", "deadline": "--deadline", "periodic.every_seconds": "--every",
            "periodic.flex_seconds": "--flex", "periodic.jitter_seconds": "--jitter",
            "periodic.max_every_seconds": "--max-every",
        ]
        func duration(_ text: String?) throws -> DurationArgument? {
            try text.map { try DurationArgument(parsing: $0) }
        }
        func time(_ text: String?) throws -> TimeArgument? { try text.map { try TimeArgument(parsing: $0) } }
        var refused = Set<String>()
        for every in [nil, "5m", "1h", "367d"] {
            // Without --every the companions have no wire form (they live inside `periodic`).
            let companions: [String?] = every == nil ? [nil] : [nil, "10m", "2h"]
            for flex in companions {
                for jitter in companions {
                    for maxEvery in every == nil ? [nil] : [nil, "30m", "4h"] {
                        for notBefore in [nil, "90m"] {
                            for deadline in [nil, "1h", "2h"] {
                                for onDeadline in [nil, DeadlineAction.expire] {
                                    let arguments = SchedulingArguments(
                                        notBefore: try time(notBefore),
                                        deadline: try time(deadline),
                                        onDeadline: onDeadline,
                                        every: try duration(every),
                                        flex: try duration(flex),
                                        jitter: try duration(jitter),
                                        maxEvery: try duration(maxEvery)
                                    )
                                    var sent = JobSubmission(
                                        kind: .fetch,
                                        url: "http://example.org/f",
                                        destination: "/tmp/f"
                                    )
                                    sent.notBefore = try time(notBefore)?.resolved(now: Self.now)
                                    sent.deadline = try time(deadline)?.resolved(now: Self.now)
                                    sent.onDeadline = onDeadline
                                    if let every {
                                        // As the wire gives it: a short period is not raised to the least.
                                        var periodic = PeriodicSchedule(
                                            every: 0,
                                            flex: try duration(flex)?.timeInterval ?? 0
                                        )
                                        periodic.every = try #require(try duration(every)).timeInterval
                                        periodic.jitter = try duration(jitter)?.timeInterval ?? 0
                                        periodic.maxEvery = try duration(maxEvery)?.timeInterval
                                        sent.periodic = periodic
                                    }
                                    let daemonSays: ValidationError?
                                    do throws(ValidationError) {
                                        try JobSpecValidator(limits: SubmissionLimits()).validate(try sent.spec())
                                        daemonSays = nil
                                    } catch {
                                        daemonSays = error
                                    }
                                    let flagsSay = refusal(arguments)
                                    let given = "\(arguments)"
                                    #expect(
                                        (flagsSay == nil) == (daemonSays == nil),
                                        "\(given): flags \(flagsSay ?? "accept"), daemon \(daemonSays?.message ?? "accepts")"
                                    )
                                    if let field = daemonSays?.field, let flagsSay {
                                        let flag = try #require(flags[field], "a flag for \(field)")
                                        #expect(flagsSay.contains(flag), "\(given): \(flagsSay) names \(flag)")
                                        refused.insert(field)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Every rule was broken somewhere above, or the comparison proves less than it seems.
        #expect(refused == Set(flags.keys), "\(refused)")
    }

    /// A deadline typed as a time already past is a typo, as `-2h` is: refused, not sent to
    /// become a job that runs at once or expires (the API itself takes past deadlines).
    @Test func aPastDeadlineTypedAsATimeIsRefused() throws {
        let past = SchedulingArguments(deadline: try TimeArgument(parsing: "2026-11-21T00:00:00Z"), onDeadline: .expire)
        #expect(refusal(past)?.contains("is in the past") == true, "\(refusal(past) ?? "accepted")")
        let coming = SchedulingArguments(deadline: try TimeArgument(parsing: "2026-11-23T00:00:00Z"))
        #expect(refusal(coming) == nil)
    }
}
