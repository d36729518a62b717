import Foundation

/// One unmet condition of a queued job: a stable machine code, the value seen, the limit, who
/// imposed it (class and config origin, or the job itself) and, when known, when it will be
/// looked at again. `description` says it in plain words:
/// "battery 18% < min_battery 30 (class background, /etc/lull/lull.toml:14)".
public struct WaitingReason: Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable, Codable {
        case onBattery = "on_battery"
        case batteryBelow = "battery_below"
        case metered
        case cellular
        case offline
        case cpuPressure = "cpu_pressure"
        case memoryPressure = "memory_pressure"
        case outsideWindow = "outside_window"
        case notBefore = "not_before"
        case backoff
        case classFull = "class_full"
        case hostFull = "host_full"
        case kindFull = "kind_full"
        case ownerFull = "owner_full"
        case globalFull = "global_full"
        case quota
        case paused
        /// A deferrable job held on a costly link until other traffic wakes it (or its release time).
        case coalescing
        /// Stopped earlier because its conditions lapsed: it waits until they have held for a
        /// while (longer after each stop), so a flapping charger or link cannot start and stop
        /// it in a loop.
        case holdDown = "hold_down"
        /// The job requires an idle machine: someone uses it, it has not been idle for
        /// `idle_after` yet, or nobody can tell (no logind).
        case notIdle = "not_idle"

        /// Whether a deadline with `on_deadline = run` overrides it.
        public var isDiscretionary: Bool {
            switch self {
            case .onBattery, .batteryBelow, .metered, .cellular, .cpuPressure, .memoryPressure,
                .outsideWindow, .coalescing, .notIdle:
                true
            case .offline, .notBefore, .backoff, .classFull, .hostFull, .kindFull, .ownerFull,
                .globalFull, .quota, .paused, .holdDown:
                false
            }
        }
    }

    public var code: Code
    /// What the scheduler saw, in words ("battery 18%", "network metered (wwan0)").
    public var seen: String
    /// The rule, in words ("min_battery 30"), when there is one.
    public var limit: String?
    /// The config key of the rule ("min_battery", "max_per_host"), or the job field ("network").
    public var setting: String?
    /// The class whose policy holds the job, when it is a class rule.
    public var className: String?
    /// Where the rule was configured; nil for a built-in default or a job's own constraint.
    public var origin: ConfigOrigin?
    /// The rule is the job's own constraint, not the admin's.
    public var fromJob: Bool
    /// When the condition will be looked at again, if the scheduler knows (a time, a window opening).
    public var until: Date?

    public init(
        code: Code,
        seen: String,
        limit: String? = nil,
        setting: String? = nil,
        className: String? = nil,
        origin: ConfigOrigin? = nil,
        fromJob: Bool = false,
        until: Date? = nil
    ) {
        self.code = code
        self.seen = seen
        self.limit = limit
        self.setting = setting
        self.className = className
        self.origin = origin
        self.fromJob = fromJob
        self.until = until
    }

    /// Plain words, citing the rule and where it was configured.
    public var description: String {
        var text = seen
        if let limit {
            let relation: String
            switch code {
            case .batteryBelow: relation = " < "
            case .cpuPressure, .memoryPressure: relation = " > "
            case .classFull, .hostFull, .kindFull, .ownerFull, .globalFull, .quota: relation = " ≥ "
            default: relation = ", "
            }
            text += relation + (fromJob ? "job's " : "") + limit
        }
        var citation: [String] = []
        if fromJob {
            citation.append("job constraint")
        } else {
            if let className { citation.append("class \(className)") }
            if limit != nil || className != nil { citation.append(origin?.location ?? "built-in default") }
        }
        if !citation.isEmpty { text += " (" + citation.joined(separator: ", ") + ")" }
        // A not_before or a backoff already names its time; saying it twice is noise.
        if let until, !text.contains(Self.format(until)) { text += "; looked at again at " + Self.format(until) }
        return text
    }

    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 0)!))
    }
}
