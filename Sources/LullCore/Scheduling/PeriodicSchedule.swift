import Foundation

/// A job that recurs: every `every` seconds, run somewhere in the last `flex` seconds of the
/// period (the flex window), shifted by a per-job jitter so a fleet does not wake together.
/// The scheduler core sees each occurrence as an ordinary deferrable job: `notBefore` = the
/// flex window's opening, `deadline` = the period's end (with `onDeadline: .run`).
///
/// Adaptive periodic fetch: a "no new data" result (304, unchanged) stretches the interval
/// (doubling) up to `maxEvery`; new data resets it to `every`.
public struct PeriodicSchedule: Sendable, Hashable, Codable {
    /// Least period accepted (Android's 15 minutes).
    public static let minimumEvery: TimeInterval = 15 * 60
    /// Longest period accepted (366 days).
    public static let maximumEvery: TimeInterval = 366 * 86_400

    public var every: TimeInterval
    public var flex: TimeInterval
    /// Largest per-job shift of the period end, 0 for none.
    public var jitter: TimeInterval
    /// Cap of the stretched interval; nil means never stretch.
    public var maxEvery: TimeInterval?

    public init(every: TimeInterval, flex: TimeInterval, jitter: TimeInterval = 0, maxEvery: TimeInterval? = nil) {
        self.every = max(every, Self.minimumEvery)
        self.flex = flex
        self.jitter = max(0, jitter)
        self.maxEvery = maxEvery
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case every = "every_seconds"
        case flex = "flex_seconds"
        case jitter = "jitter_seconds"
        case maxEvery = "max_every_seconds"
    }

    /// The wire form, `{"every_seconds": 3600, "flex_seconds": 600, ...}`, taken as given (no
    /// clamping: `JobSpecValidator` refuses what is out of range, naming the field).
    public init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, keyedBy: CodingKeys.self)
        every = try container.decode(Double.self, forKey: .every)
        flex = try container.decodeIfPresent(Double.self, forKey: .flex) ?? 0
        jitter = try container.decodeIfPresent(Double.self, forKey: .jitter) ?? 0
        maxEvery = try container.decodeIfPresent(Double.self, forKey: .maxEvery)
    }

    /// The flex window actually used: at least max(5 min, 5% of the interval), at most the interval.
    public func effectiveFlex(interval: TimeInterval? = nil) -> TimeInterval {
        let period = interval ?? every
        return min(period, max(flex, 300, period * 0.05))
    }

    /// The next occurrence after a run that ended at `lastRun`: the flex window opens at
    /// `opens` and the occurrence is due at `due`. `salt` (e.g. the job id) picks the jitter
    /// deterministically, in [0, jitter).
    public func nextWindow(after lastRun: Date, interval: TimeInterval? = nil, salt: UInt64) -> (opens: Date, due: Date)
    {
        let period = interval ?? every
        let shift = jitter > 0 ? Double(Self.mix(salt) % 1_000_000) / 1_000_000 * jitter : 0
        let due = lastRun.addingTimeInterval(period + shift)
        return (due.addingTimeInterval(-effectiveFlex(interval: period)), due)
    }

    /// The interval after a run: doubled (up to `maxEvery`) when it found nothing new, reset otherwise.
    public func nextInterval(current: TimeInterval, unchanged: Bool) -> TimeInterval {
        guard unchanged, let cap = maxEvery else { return every }
        return min(cap, max(every, current * 2))
    }

    /// SplitMix64 finaliser: a well-spread hash of the salt.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
