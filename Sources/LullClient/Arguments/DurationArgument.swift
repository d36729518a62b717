import Foundation

/// A length of time as a person types it: a whole number and a unit, `90s`, `30m`, `2h`, `1d`,
/// or several of them from the largest unit down, `1h30m`. Always longer than zero.
public struct DurationArgument: Sendable, Hashable, CustomStringConvertible {
    public let seconds: Int

    /// The accepted forms, for help texts and error messages.
    public static let forms = "a whole number and a unit s, m, h or d, such as 90s, 30m, 2h, 1d or 1h30m"

    static let units: [(symbol: Character, seconds: Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]

    public init(seconds: Int) {
        precondition(seconds > 0, "a duration is longer than zero")
        self.seconds = seconds
    }

    public init(parsing text: String) throws(ArgumentValueError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ArgumentValueError("no duration given; give \(Self.forms)") }
        if trimmed.allSatisfy(\.isASCIIDigit) {
            throw ArgumentValueError(
                "\"\(text)\" has no unit; give \(Self.forms) (\(trimmed) minutes is \(trimmed)m, \(trimmed) seconds \(trimmed)s)"
            )
        }
        var total = 0
        var digits = ""
        var nextUnit = Self.units.startIndex
        for character in trimmed {
            if character.isASCIIDigit {
                digits.append(character)
                continue
            }
            guard !digits.isEmpty, let unit = Self.units[nextUnit...].firstIndex(where: { $0.symbol == character })
            else {
                throw ArgumentValueError("\"\(text)\" is not a duration; give \(Self.forms)")
            }
            guard let count = Int(digits) else { throw Self.tooLong(text) }
            let (part, overflowA) = count.multipliedReportingOverflow(by: Self.units[unit].seconds)
            let (sum, overflowB) = total.addingReportingOverflow(part)
            guard !overflowA, !overflowB else { throw Self.tooLong(text) }
            total = sum
            digits = ""
            nextUnit = unit + 1
        }
        guard digits.isEmpty else { throw ArgumentValueError("\"\(text)\" ends without a unit; give \(Self.forms)") }
        guard total > 0 else {
            throw ArgumentValueError("\"\(text)\" is no time at all; give a duration longer than zero, such as 30m")
        }
        seconds = total
    }

    public var timeInterval: TimeInterval { TimeInterval(seconds) }

    /// The spelling with the largest units: 5400 seconds is `1h30m`, 90 seconds `1m30s`.
    public var description: String {
        var rest = seconds
        var text = ""
        for unit in Self.units where rest >= unit.seconds {
            text += "\(rest / unit.seconds)\(unit.symbol)"
            rest %= unit.seconds
        }
        return text
    }

    private static func tooLong(_ text: String) -> ArgumentValueError {
        ArgumentValueError("\"\(text)\" is too long a time; give \(forms)")
    }
}

extension Character {
    /// 0–9 only (`isNumber` also takes other scripts' digits and fractions).
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
