/// A request the daemon refuses, with the field it is about and a message that says what to do.
public struct ValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case malformedJSON = "malformed_json"
        case missingField = "missing_field"
        case unknownField = "unknown_field"
        case duplicateField = "duplicate_field"
        case invalidValue = "invalid_value"
        case tooLarge = "too_large"
        /// A valid value this daemon cannot enforce where it runs (HTTP 422).
        case notEnforceable = "not_enforceable"
        /// A value others may give and this submitter may not, or not here (HTTP 403).
        case forbidden = "forbidden"
    }

    public var code: Code
    public var field: String?
    public var message: String

    public init(_ code: Code, field: String?, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { message }
}
