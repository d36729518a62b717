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
    public static func date(fromISO8601 text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
