import Foundation

/// Finds a key that an object of a JSON text gives twice. JSONDecoder keeps the first value of
/// a doubled key and most other parsers the last, so a proxy that checked a body and the daemon
/// could read two different jobs from it; the daemon refuses such a body instead.
///
/// One pass over the bytes, for a text JSONDecoder has already accepted (so its structure is
/// sound). A key is compared as spelled, and unescaped only when it holds a backslash, with the
/// keys before it in the same object: one by one while the object is small, by hash once it
/// holds many. The keys of the open objects share one array, cut back as each object closes.
struct DuplicateKeyScanner {
    /// The wire path of the first key given twice (`retry.max_attempts`, `jobs[2].url`), or nil.
    static func firstDuplicate(in data: Data) -> String? {
        data.withUnsafeBytes { raw in
            var scanner = DuplicateKeyScanner(raw.bindMemory(to: UInt8.self))
            return scanner.run()
        }
    }

    /// How deep arrays and objects nest at most, strings aside; for any text, valid or not.
    static func nestingDepth(of data: Data) -> Int {
        data.withUnsafeBytes { raw in
            var depth = 0
            var deepest = 0
            var inString = false
            var escaped = false
            for byte in raw {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == .backslash {
                        escaped = true
                    } else if byte == .quote {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case .quote: inString = true
                case .openBrace, .openBracket:
                    depth += 1
                    deepest = max(deepest, depth)
                case .closeBrace, .closeBracket: depth -= 1
                default: break
                }
            }
            return deepest
        }
    }

    /// A key's bytes: a range of the text, or of `unescaped` when it was spelled with escapes.
    private struct Key {
        var start: Int
        var count: Int
        var unescaped: Bool
    }

    /// An open object or array.
    private struct Frame {
        var isObject: Bool
        /// Where this object's keys begin in `keys` (for an array: where its elements' do).
        var firstKey: Int
        var unescapedStart: Int
        /// An array's current element, for the path.
        var element = 0
        /// The hashes of this object's keys, once it holds `hashFrom` of them.
        var hashes: Set<Int>?
    }

    /// From this many keys in one object, a new key is looked up by hash, not compared with each.
    private static let hashFrom = 16

    private let bytes: UnsafeBufferPointer<UInt8>
    private var keys: [Key] = []
    private var frames: [Frame] = []
    private var unescaped: [UInt8] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        keys.reserveCapacity(64)
        frames.reserveCapacity(8)
    }

    private mutating func run() -> String? {
        var index = 0
        var expectingKey = false
        let end = bytes.count
        while index < end {
            switch bytes[index] {
            case .openBrace:
                frames.append(Frame(isObject: true, firstKey: keys.count, unescapedStart: unescaped.count))
                expectingKey = true
            case .openBracket:
                frames.append(Frame(isObject: false, firstKey: keys.count, unescapedStart: unescaped.count))
            case .closeBrace, .closeBracket:
                if let frame = frames.popLast() {
                    keys.removeLast(keys.count - frame.firstKey)
                    unescaped.removeLast(unescaped.count - frame.unescapedStart)
                }
                expectingKey = false
            case .comma:
                if let last = frames.indices.last {
                    if frames[last].isObject { expectingKey = true } else { frames[last].element += 1 }
                }
            case .quote:
                let start = index + 1
                var escaped = false
                index = start
                while index < end, bytes[index] != .quote {
                    if bytes[index] == .backslash {
                        escaped = true
                        index += 1
                    }
                    index += 1
                }
                if expectingKey {
                    expectingKey = false
                    if let path = add(start: start, end: min(index, end), escaped: escaped) { return path }
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// Records a key of the innermost object; the path of the key when the object has it already.
    private mutating func add(start: Int, end: Int, escaped: Bool) -> String? {
        guard let frame = frames.indices.last else { return nil }
        var key = Key(start: start, count: end - start, unescaped: false)
        if escaped {
            let from = unescaped.count
            JSONStringEscapes.unescape(UnsafeBufferPointer(rebasing: bytes[start..<end]), into: &unescaped)
            key = Key(start: from, count: unescaped.count - from, unescaped: true)
        }
        let first = frames[frame].firstKey
        if keys.count - first >= Self.hashFrom {
            if frames[frame].hashes == nil {
                var hashes = Set<Int>(minimumCapacity: 4 * Self.hashFrom)
                for index in first..<keys.count { hashes.insert(hash(keys[index])) }
                frames[frame].hashes = hashes
            }
            // A hash seen before is nearly always the same key; the bytes decide.
            if !frames[frame].hashes!.insert(hash(key)).inserted, keys[first...].contains(where: { same($0, key) }) {
                return path(to: key)
            }
        } else if keys[first...].contains(where: { same($0, key) }) {
            return path(to: key)
        }
        keys.append(key)
        return nil
    }

    private func withBytes<R>(of key: Key, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if key.unescaped {
            return unescaped.withUnsafeBytes {
                body(UnsafeRawBufferPointer(rebasing: $0[key.start..<key.start + key.count]))
            }
        }
        return body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[key.start..<key.start + key.count]))
    }

    private func same(_ a: Key, _ b: Key) -> Bool {
        guard a.count == b.count else { return false }
        if a.count == 0 { return true }
        return withBytes(of: a) { left in
            withBytes(of: b) { right in memcmp(left.baseAddress!, right.baseAddress!, a.count) == 0 }
        }
    }

    private func hash(_ key: Key) -> Int {
        withBytes(of: key) { bytes in
            var hasher = Hasher()
            hasher.combine(bytes: bytes)
            return hasher.finalize()
        }
    }

    private func text(_ key: Key) -> String {
        withBytes(of: key) { String(decoding: $0, as: UTF8.self) }
    }

    /// The wire path of `key` in the innermost object, as `WireDecoding.path` spells paths.
    private func path(to key: Key) -> String {
        var path = ""
        for index in frames.indices {
            if frames[index].isObject {
                // An outer object's current key is the one just before its child's keys.
                let name = index + 1 < frames.count ? text(keys[frames[index + 1].firstKey - 1]) : text(key)
                path += path.isEmpty ? name : "." + name
            } else {
                path += "[\(frames[index].element)]"
            }
        }
        return path
    }
}

/// The bytes a JSON string's escapes stand for.
enum JSONStringEscapes {
    /// Appends the UTF-8 of the string whose contents (between the quotes) are `escaped`.
    static func unescape(_ escaped: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        var index = 0
        let end = escaped.count
        while index < end {
            let byte = escaped[index]
            index += 1
            guard byte == .backslash, index < end else {
                output.append(byte)
                continue
            }
            let code = escaped[index]
            index += 1
            switch code {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                guard var unit = hex4(escaped, at: index) else { continue }
                index += 4
                if (0xD800..<0xDC00).contains(unit), index + 6 <= end, escaped[index] == .backslash,
                    escaped[index + 1] == UInt8(ascii: "u"), let low = hex4(escaped, at: index + 2),
                    (0xDC00..<0xE000).contains(low)
                {
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                UTF8.encode(Unicode.Scalar(unit) ?? "\u{FFFD}") { output.append($0) }
            default: output.append(code)
            }
        }
    }

    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt32? {
        guard start + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[start..<start + 4] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let comma = UInt8(ascii: ",")
}
