/// Refuses object keys a type does not know. Decoding errors it raises carry the offending key
/// in their coding path and `StrictKeys.marker` in their description.
public enum StrictKeys {
    public static let marker = "unknown field"

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public static func check<Keys: CodingKey & CaseIterable>(_ decoder: any Decoder, allowed: Keys.Type) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys where Keys(stringValue: key.stringValue) == nil {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath + [key], debugDescription: marker))
        }
    }
}
