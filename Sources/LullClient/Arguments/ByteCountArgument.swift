import Foundation

/// A size as a person types it: a whole number of bytes, or one with a binary unit,
/// `512K`, `10M`, `2G`, `1T` (also spelled `KiB`, `MiB`, `GiB`, `TiB`).
public struct ByteCountArgument: Sendable, Hashable, CustomStringConvertible {
    public let bytes: Int64

    /// The accepted forms, for help texts and error messages.
    public static let forms =
        "a number of bytes, or one with a unit K, M, G or T (powers of 1024), such as 4096, 512K or 10M"

    static let units: [(suffixes: [String], shift: Int64)] = [
        (["K", "KIB"], 10), (["M", "MIB"], 20), (["G", "GIB"], 30), (["T", "TIB"], 40),
    ]

    public init(parsing text: String) throws(ArgumentValueError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isASCIIDigit }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).uppercased()
        guard !digits.isEmpty else { throw ArgumentValueError("\"\(text)\" is not a size; give \(Self.forms)") }
        var shift: Int64 = 0
        if !unit.isEmpty && unit != "B" {
            guard let match = Self.units.first(where: { $0.suffixes.contains(unit) }) else {
                throw ArgumentValueError("\"\(text)\" has an unknown unit \"\(unit)\"; give \(Self.forms)")
            }
            shift = match.shift
        }
        guard let count = Int64(digits), count <= Int64.max >> shift else {
            throw ArgumentValueError("\(text) is too large; give at most 8 EiB (\(Int64.max) bytes)")
        }
        bytes = count << shift
    }

    public var description: String { String(bytes) }
}
