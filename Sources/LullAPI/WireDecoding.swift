import Foundation
import LullCore

/// Decodes request bodies and turns every decoding failure into a `ValidationError` that names
/// the field, in the wire's own spelling (`jobs[3].url`).
public enum WireDecoding {
    /// How deep JSONDecoder lets arrays and objects nest; a deeper body is not read at all.
    static let nestingLimit = 512

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(ValidationError) -> T {
        // JSONDecoder also reads UTF-16 and UTF-32 (told by a byte-order mark or by NULs among the
        // first bytes), which the duplicate-key scanner, reading UTF-8, would misread: a
        // duplicate would pass it, to be read one way here and another by a proxy before us.
        // JSON on the wire is UTF-8 (RFC 8259), without a byte-order mark.
        if !isPlainUTF8JSON(data) {
            throw ValidationError(
                .malformedJSON,
                field: nil,
                "request body is not UTF-8 JSON (it has a byte-order mark, or is UTF-16 or UTF-32); send it as UTF-8"
            )
        }
        let value: T
        do {
            value = try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw validationError(for: error, in: data)
        } catch {
            throw ValidationError(.malformedJSON, field: nil, "request body is not valid JSON")
        }
        // After decoding, so that only sound JSON is scanned, and only what is otherwise accepted.
        if let key = DuplicateKeyScanner.firstDuplicate(in: data) {
            throw ValidationError(
                .duplicateField,
                field: key,
                "duplicate key \"\(key)\" in the request body; give each key once"
            )
        }
        return value
    }

    /// No byte-order mark, and no NUL among the first four bytes (a NUL is never valid in
    /// UTF-8 JSON, where control characters must be escaped).
    static func isPlainUTF8JSON(_ data: Data) -> Bool {
        let start = data.prefix(4)
        if start.contains(0) { return false }
        return
            !(start.starts(with: [0xEF, 0xBB, 0xBF]) || start.starts(with: [0xFE, 0xFF])
            || start.starts(with: [0xFF, 0xFE]))
    }

    static func validationError(for error: DecodingError, in data: Data) -> ValidationError {
        let refusal = validationError(for: error)
        // JSONDecoder calls a body nested past its limit "not valid JSON", which it may well be.
        if refusal.code == .malformedJSON, DuplicateKeyScanner.nestingDepth(of: data) > nestingLimit {
            return ValidationError(
                .malformedJSON,
                field: nil,
                "request body is nested too deeply (limit \(nestingLimit) levels); see docs/api.md for the shape of a job"
            )
        }
        return refusal
    }

    static func validationError(for error: DecodingError) -> ValidationError {
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return ValidationError(.missingField, field: field, "missing required field \"\(field)\"")
        case .valueNotFound(_, let context):
            if context.codingPath.isEmpty {
                return ValidationError(.malformedJSON, field: nil, "request body must be a JSON object")
            }
            let field = path(context.codingPath)
            return ValidationError(.missingField, field: field, "field \"\(field)\" must not be null")
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            if context.codingPath.isEmpty {
                return ValidationError(.malformedJSON, field: nil, "request body must be a JSON object")
            }
            return ValidationError(.invalidValue, field: field, "field \"\(field)\" must be \(describe(type))")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            if context.debugDescription == StrictKeys.marker {
                return ValidationError(
                    .unknownField,
                    field: field,
                    "unknown field \"\(field)\"; see docs/api.md for the fields of a job"
                )
            }
            if context.codingPath.isEmpty {
                return ValidationError(.malformedJSON, field: nil, "request body is not valid JSON")
            }
            if let reason = context.underlyingError as? FieldProblem {
                return ValidationError(.invalidValue, field: field, "field \"\(field)\" \(reason.problem)")
            }
            return ValidationError(.invalidValue, field: field, "field \"\(field)\" has an invalid value")
        @unknown default:
            return ValidationError(.malformedJSON, field: nil, "request body could not be decoded")
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        var result = ""
        for key in keys {
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return result
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Bool.Type: "true or false"
        case is [String: String].Type: "an object of string values"
        case is Double.Type: "a number"
        default: String(describing: type).hasPrefix("Dictionary") ? "an object" : "of type \(type)"
        }
    }
}
