/// JSON text with the members of chosen objects put in key order and every other byte kept.
///
/// What `JSONEncoder` writes, and any `[String: String]` a `JSONWriter` iterates, comes out in an
/// order that changes from one process to the next (Swift seeds its hashing per process), so a
/// byte-for-byte golden can only hold those objects in a fixed order. Everything else (the
/// order `JSONWriter` gives, number and string spelling, escapes) is compared as written: the
/// text is re-emitted from its own bytes, and text with whitespace between tokens is refused
/// rather than silently normalised.
public enum JSONMemberOrder {
    /// Sorts, by the bytes of their keys, the members of every object at or below one of
    /// `paths` (object keys from the root; arrays are passed through): `[[]]` sorts every object, `[]` none.
    public static func sorting(_ json: some Sequence<UInt8>, under paths: [[String]]) throws -> [UInt8] {
        var parser = Parser(bytes: Array(json))
        let node = try parser.document()
        var output: [UInt8] = []
        output.reserveCapacity(parser.bytes.count)
        node.write(to: &output, path: [], sortedUnder: paths)
        return output
    }

    public struct Malformed: Error, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "JSON at byte \(offset): \(reason)" }
    }

    private indirect enum Node {
        /// A string, number or literal, as written.
        case scalar(ArraySlice<UInt8>)
        /// Members in their written order; keys as written, quotes included.
        case object([(key: ArraySlice<UInt8>, value: Node)])
        case array([Node])

        func write(to output: inout [UInt8], path: [String], sortedUnder paths: [[String]]) {
            switch self {
            case .scalar(let bytes):
                output += bytes
            case .array(let elements):
                output.append(UInt8(ascii: "["))
                for (index, element) in elements.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    element.write(to: &output, path: path, sortedUnder: paths)
                }
                output.append(UInt8(ascii: "]"))
            case .object(let members):
                let sorts = paths.contains { path.starts(with: $0) }
                let ordered = sorts ? members.sorted { $0.key.lexicographicallyPrecedes($1.key) } : members
                output.append(UInt8(ascii: "{"))
                for (index, member) in ordered.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    output += member.key
                    output.append(UInt8(ascii: ":"))
                    let name = String(decoding: member.key.dropFirst().dropLast(), as: UTF8.self)
                    member.value.write(to: &output, path: path + [name], sortedUnder: paths)
                }
                output.append(UInt8(ascii: "}"))
            }
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() throws -> Node {
            let node = try value()
            guard index == bytes.count else { throw fail("text after the value") }
            return node
        }

        func fail(_ reason: String) -> Malformed { Malformed(offset: index, reason: reason) }

        mutating func expect(_ byte: UInt8) throws {
            guard index < bytes.count, bytes[index] == byte else {
                throw fail("expected \"\(Character(Unicode.Scalar(byte)))\"")
            }
            index += 1
        }

        mutating func value() throws -> Node {
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(key: ArraySlice<UInt8>, value: Node)] = []
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    let key = try string()
                    try expect(UInt8(ascii: ":"))
                    members.append((key, try value()))
                    guard index < bytes.count else { throw fail("unterminated object") }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "}") { return .object(members) }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { throw fail("expected , or }") }
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [Node] = []
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                while true {
                    elements.append(try value())
                    guard index < bytes.count else { throw fail("unterminated array") }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "]") { return .array(elements) }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { throw fail("expected , or ]") }
                }
            case UInt8(ascii: "\""):
                return .scalar(try string())
            default:
                // A number or a literal: up to the next structural byte. Whitespace is refused.
                let start = index
                while index < bytes.count,
                    ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[index])
                {
                    guard ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) else {
                        throw fail("whitespace between tokens")
                    }
                    index += 1
                }
                guard index > start else { throw fail("expected a value") }
                return .scalar(bytes[start..<index])
            }
        }

        /// A string token, quotes included, as written.
        mutating func string() throws -> ArraySlice<UInt8> {
            let start = index
            try expect(UInt8(ascii: "\""))
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return bytes[start..<index]
                default: index += 1
                }
            }
            throw fail("unterminated string")
        }
    }
}
