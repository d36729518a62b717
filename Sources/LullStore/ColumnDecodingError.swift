import Foundation

/// A JSON column of a job's row that no longer decodes, said in words: which column, and where
/// in it (a person reads this to decide whether the row can be mended or only cancelled).
struct ColumnDecodingError: Error, CustomStringConvertible {
    var column: String
    var error: DecodingError

    var description: String {
        switch error {
        case .keyNotFound(let key, let context):
            "\(column): missing \"\(Self.path(context.codingPath + [key]))\""
        case .valueNotFound(_, let context):
            "\(column): \"\(Self.path(context.codingPath))\" is null"
        case .typeMismatch(let type, let context):
            "\(column): \"\(Self.path(context.codingPath))\" is not \(type)"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            "\(column): not valid JSON"
        case .dataCorrupted(let context):
            "\(column): \"\(Self.path(context.codingPath))\": \(context.debugDescription)"
        @unknown default:
            "\(column): \(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
