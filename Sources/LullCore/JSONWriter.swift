import Foundation

/// Writes JSON straight into bytes, for what the daemon writes on every submission: the job view
/// it answers with and the spec it stores. `JSONEncoder` builds a tree of boxed values and a
/// dictionary per object before it writes a byte; for one submission the answer and the spec
/// through JSONEncoder were over a quarter of the daemon's instructions (docs/performance.md).
/// Each user writes the keys its `Codable` form has and omits nil as `encodeIfPresent` does, and a test per user checks that its output decodes to
/// the same value as `JSONEncoder`'s. Strings are escaped as JSONEncoder escapes them (a slash is
/// left as it is, which every decoder reads alike). Key order is the writer's own (JSONEncoder's
/// is a dictionary's), which JSON gives no meaning to. Values without a writer of their own go
/// through the `JSONEncoder` the writer was made with and are spliced in.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether the object or array being written needs a comma before its next member.
    private var needsComma = false
    private let makeEncoder: () -> JSONEncoder
    private var encoder: JSONEncoder?
    /// Whether a NaN or an infinity was written (as null): the store refuses such a value, as
    /// JSONEncoder does, where a view shows it as null.
    public private(set) var wroteNonFiniteNumber = false

    /// `encoder` makes the JSONEncoder for values without a writer of their own (made when first needed).
    public init(capacity: Int = 1024, encoder: @escaping () -> JSONEncoder) {
        bytes.reserveCapacity(capacity)
        makeEncoder = encoder
    }

    // MARK: Structure

    public mutating func object(_ body: (inout JSONWriter) throws -> Void) rethrows {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        try body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func array<S: Sequence>(
        _ elements: S,
        _ element: (inout JSONWriter, S.Element) throws -> Void
    ) rethrows {
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for item in elements {
            separate()
            try element(&self, item)
            needsComma = true
        }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Starts a member of the enclosing object; the value written next is its value.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    // MARK: Members, omitted when nil (as JSONEncoder's encodeIfPresent does)

    public mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    // Inlinable, so each caller's module specializes them: a generic call across modules looks
    // up the Optional's metadata every time.
    @inlinable public mutating func member<T: RawRepresentable>(_ name: StaticString, _ value: T?)
    where T.RawValue == String {
        member(name, value?.rawValue)
    }

    @inlinable public mutating func member<T: BinaryInteger>(_ name: StaticString, _ value: T?) {
        guard let value else { return }
        key(name)
        integer(value)
    }

    public mutating func member(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        number(value)
    }

    public mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        literal(value ? "true" : "false")
    }

    public mutating func member(_ name: StaticString, _ value: Date?) throws {
        guard let value else { return }
        key(name)
        try date(value)
    }

    /// A value with no writer of its own, encoded by the writer's JSONEncoder.
    public mutating func member<T: Encodable>(_ name: StaticString, encoding value: T?) throws {
        guard let value else { return }
        key(name)
        try encoded(value)
    }

    /// Splices in what the writer's JSONEncoder (made on first use) writes for `value`.
    private mutating func encoded<T: Encodable>(_ value: T) throws {
        let encoder = encoder ?? makeEncoder()
        self.encoder = encoder
        bytes.append(contentsOf: try encoder.encode(value))
        needsComma = true
    }

    public mutating func member(_ name: StaticString, _ value: [String: String]?) {
        member(name, value) { json, text in json.string(text) }
    }

    public mutating func member(_ name: StaticString, _ value: [String: Int64]?) {
        member(name, value) { json, number in json.integer(number) }
    }

    /// An object keyed by the dictionary's keys, each value written by `element`.
    public mutating func member<Value>(
        _ name: StaticString,
        _ value: [String: Value]?,
        _ element: (inout JSONWriter, Value) -> Void
    ) {
        guard let value else { return }
        key(name)
        object { json in
            for (name, item) in value {
                json.separate()
                json.string(name)
                json.bytes.append(UInt8(ascii: ":"))
                element(&json, item)
            }
        }
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): escape(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): escape(UInt8(ascii: "\\"))
            case 0x0A: escape(UInt8(ascii: "n"))
            case 0x0D: escape(UInt8(ascii: "r"))
            case 0x09: escape(UInt8(ascii: "t"))
            case 0x08: escape(UInt8(ascii: "b"))
            case 0x0C: escape(UInt8(ascii: "f"))
            case 0..<0x20:
                escape(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0x0F))
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func escape(_ letter: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(letter)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    private mutating func literal(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        needsComma = true
    }

    @inlinable public mutating func integer<T: BinaryInteger>(_ value: T) {
        if let signed = Int64(exactly: value) { integer(signed) } else { integer(UInt64(value)) }
    }

    public mutating func integer(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    public mutating func integer(_ value: UInt64) {
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Whole numbers without a fraction, as JSONEncoder writes them; others in Swift's shortest
    /// round-tripping form. JSON has no NaN or infinity: those are written as null.
    public mutating func number(_ value: Double) {
        guard value.isFinite else {
            wroteNonFiniteNumber = true
            literal("null")
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
        needsComma = true
    }

    /// `2026-11-21T18:58:03Z`: UTC, whole seconds, as JSONEncoder's `.iso8601` strategy writes it.
    /// Years before 1600 or after 9999 are left to the writer's encoder: Foundation counts days
    /// before the Gregorian reform in the Julian calendar, the C library does not, and years
    /// past 9999 take a fifth digit.
    public mutating func date(_ value: Date) throws {
        var parts = tm()
        let whole = value.timeIntervalSince1970.rounded(.down)
        guard var seconds = time_t(exactly: whole), gmtime_r(&seconds, &parts) != nil,
            (1600...9999).contains(Int(parts.tm_year) + 1900)
        else {
            try encoded(value)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        digits(Int(parts.tm_year) + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        bytes.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        bytes.append(UInt8(ascii: "Z"))
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func digits(_ value: Int, _ width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
