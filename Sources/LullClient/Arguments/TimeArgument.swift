import Foundation
import LullAPI

/// A point in time as a person types it: an ISO-8601 time with a zone, or a duration counted
/// from now (`30m`: half an hour from the moment the command runs).
public enum TimeArgument: Sendable, Hashable {
    case at(Date)
    case fromNow(DurationArgument)

    /// The accepted forms, for help texts and error messages.
    public static let forms =
        "an ISO-8601 time with a zone, such as 2026-11-21T18:00:00Z or 2026-11-21T19:00:00+01:00, or a duration from now, such as 90s, 30m, 2h or 1d"

    public init(parsing text: String) throws(ArgumentValueError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = WireJSON.date(fromISO8601: trimmed) {
            self = .at(date)
        } else if let duration = try? DurationArgument(parsing: trimmed) {
            self = .fromNow(duration)
        } else if trimmed.hasPrefix("--") {
            // lullctl takes "-2h" as a value so that it can be told it is in the past; an option
            // right after the flag means the time was left out.
            throw ArgumentValueError("a time is missing: \"\(text)\" is an option; give \(Self.forms)")
        } else if trimmed.hasPrefix("-"), (try? DurationArgument(parsing: String(trimmed.dropFirst()))) != nil {
            throw ArgumentValueError(
                "\"\(text)\" is in the past; give a duration from now such as 2h, or a time to come"
            )
        } else if Self.isoDateWithoutZone(trimmed) {
            throw ArgumentValueError(
                "\"\(text)\" has no time zone; add Z for UTC or an offset such as +01:00 (\(Self.inUTC(trimmed))), or give a duration from now such as 2h"
            )
        } else {
            throw ArgumentValueError("\"\(text)\" is not a time; give \(Self.forms)")
        }
    }

    /// The time this stands for when the command runs at `now`.
    public func resolved(now: Date) -> Date {
        switch self {
        case .at(let date): date
        case .fromNow(let duration): now.addingTimeInterval(duration.timeInterval)
        }
    }

    /// A time without a zone read as UTC, in the form the API takes: `2026-11-21 18:00` → `2026-11-21T18:00:00Z`.
    static func inUTC(_ text: String) -> String {
        var time = text.replacingOccurrences(of: " ", with: "T")
        if time.count == 16 { time += ":00" }
        return time + "Z"
    }

    /// `2026-11-21T18:00:00` or `2026-11-21T18:00`: a local time the daemon would not know how to place.
    static func isoDateWithoutZone(_ text: String) -> Bool {
        text.wholeMatch(of: /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?/) != nil
    }
}
