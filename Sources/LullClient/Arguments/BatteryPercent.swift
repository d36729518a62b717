import LullCore

/// A battery charge as a person types it: `30` or `30%`, from 0 to 100. The API's
/// `min_battery` is this percentage too (not a fraction).
public struct BatteryPercent: Sendable, Hashable {
    public let percent: Double

    /// The accepted forms, for help texts and error messages.
    public static let forms = "a percentage from 0 to 100, such as 30 or 30%"

    public init(parsing text: String) throws(ArgumentValueError) {
        var number = Substring(text.trimmingCharacters(in: .whitespaces))
        if number.hasSuffix("%") { number = number.dropLast() }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw ArgumentValueError("\"\(text)\" is not a percentage; give \(Self.forms)")
        }
        guard JobConstraints.minBatteryRange.contains(value) else {
            throw ArgumentValueError("\(text) is out of range; give \(Self.forms)")
        }
        percent = value
    }
}
