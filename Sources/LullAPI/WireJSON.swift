import Foundation

/// The one JSON dialect of the API: ISO-8601 times, keys as declared (snake_case).
public enum WireJSON {
    /// - Parameter sortedKeys: for text people and scripts read (lullctl's `--json`): the same
    ///   value prints the same text every time. The daemon's answers skip the sorting.
    public static func encoder(sortedKeys: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = sortedKeys ? [.withoutEscapingSlashes, .sortedKeys] : [.withoutEscapingSlashes]
        return encoder
    }

    /// A time as the API takes it: ISO-8601 with a zone, with or without fractional seconds.
    /// FoundationEssentials' format style, not `ISO8601DateFormatter`, which opens two ICU date
    /// formatters per call.
    public static func date(fromISO8601 text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    /// A time as the API writes it: `2026-01-31T22:00:00Z`.
    public static func string(fromISO8601 date: Date) -> String {
        Date.ISO8601FormatStyle().format(date)
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
