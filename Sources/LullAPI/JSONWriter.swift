import Foundation

/// Writes the API's JSON dialect (`WireJSON`) straight into bytes, for the views the daemon
/// answers with on every submission and every list. `JSONEncoder` builds a tree of boxed values
/// and a dictionary per object before it writes a byte; for a job view that was a quarter of the
/// daemon's CPU time per submission (docs/performance.md). The output means the same as
/// `WireJSON.encoder()`'s: the same keys, absent keys where it omits nil, strings escaped as it
/// escapes them, times as whole-second ISO-8601 in UTC. Key order differs (JSONEncoder's is a
/// dictionary's), which JSON does not give meaning to. Values without a writer of their own go
/// through `JSONEncoder` and are spliced in.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether the object or array being written needs a comma before its next member.
    private var needsComma = false
    private var fallback: JSONEncoder?

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    // MARK: Structure

    public mutating func object(_ body: (inout JSONWriter) throws -> Void) rethrows {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        try body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func array<S: Sequence>(_ elements: S, _ element: (inout JSONWriter, S.Element) throws -> Void) rethrows {
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
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
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

    public mutating func member<T: RawRepresentable>(_ name: StaticString, _ value: T?) where T.RawValue == String {
        member(name, value?.rawValue)
    }

    public mutating func member<T: BinaryInteger>(_ name: StaticString, _ value: T?) {
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
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
        needsComma = true
    }

    public mutating func member(_ name: StaticString, _ value: Date?) {
        guard let value else { return }
        key(name)
        date(value)
    }

    public mutating func member<T: JSONWritable>(_ name: StaticString, _ value: T?) throws {
        guard let value else { return }
        key(name)
        try value.write(to: &self)
    }

    public mutating func member<T: JSONWritable>(_ name: StaticString, _ values: [T]?) throws {
        guard let values else { return }
        key(name)
        try array(values) { writer, value in try value.write(to: &writer) }
    }

    /// A value with no writer of its own, encoded by JSONEncoder (in the API's dialect).
    public mutating func member<T: Encodable>(_ name: StaticString, encoding value: T?) throws {
        guard let value else { return }
        key(name)
        let encoder = fallback ?? WireJSON.encoder()
        fallback = encoder
        bytes.append(contentsOf: try encoder.encode(value))
        needsComma = true
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func integer<T: BinaryInteger>(_ value: T) {
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Whole numbers without a fraction, as JSONEncoder writes them; others in Swift's shortest
    /// round-tripping form. JSON has no NaN or infinity: those are written as null.
    public mutating func number(_ value: Double) {
        if !value.isFinite {
            bytes.append(contentsOf: Array("null".utf8))
        } else if value == value.rounded(), abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
        needsComma = true
    }

    /// `2026-11-21T18:58:03Z`: UTC, whole seconds, as JSONEncoder's `.iso8601` strategy writes it.
    public mutating func date(_ value: Date) {
        var seconds = time_t(value.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
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
        bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
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

/// A view that writes its own JSON (see `JSONWriter`), meaning the same as its `Encodable` form.
public protocol JSONWritable: Encodable {
    func write(to writer: inout JSONWriter) throws
}

extension JSONWritable {
    /// The whole JSON document for this value.
    public func jsonBytes() throws -> [UInt8] {
        var writer = JSONWriter()
        try write(to: &writer)
        return writer.bytes
    }
}
