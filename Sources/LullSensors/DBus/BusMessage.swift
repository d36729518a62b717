import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// One sd-bus message, referenced for the lifetime of this object. Only used on the thread
/// of the connection it belongs to.
package final class BusMessage {
    let raw: OpaquePointer

    /// Takes a new reference on `raw`.
    init(retaining raw: OpaquePointer) {
        self.raw = sd_bus_message_ref(raw)
    }

    /// Adopts the caller's reference.
    init(adopting raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        sd_bus_message_unref(raw)
    }

    package var path: String? { sd_bus_message_get_path(raw).map { String(cString: $0) } }
    var interface: String? { sd_bus_message_get_interface(raw).map { String(cString: $0) } }
    var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }
    var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }

    // MARK: reading

    /// Reads the next complete value of any type.
    package func read() throws -> DBusValue {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>? = nil
        let r = sd_bus_message_peek_type(raw, &type, &contents)
        guard r > 0 else { throw BusError(operation: "read message (peek)", errno: r == 0 ? 61 /* ENODATA */ : -r) }
        let contentSignature = contents.map { String(cString: $0) } ?? ""
        let t = UInt8(bitPattern: type)
        switch t {
        case UInt8(ascii: "v"):
            try enter(type, contentSignature)
            let inner = try read()
            try exit()
            if case .unsupported = inner { return inner }
            // A variant whose content is itself a variant keeps the nesting visible.
            if contentSignature == "v" { return .variant(.init(inner)) }
            return inner
        case UInt8(ascii: "a"):
            try enter(type, contentSignature)
            defer { _ = sd_bus_message_exit_container(raw) }
            if contentSignature.hasPrefix("{") {
                var entries: [DBusValue.DictionaryEntry] = []
                while try !atEnd() {
                    try enter(CChar(UInt8(ascii: "e")), String(contentSignature.dropFirst().dropLast()))
                    let key = try read()
                    let value = try read()
                    try exit()
                    entries.append(.init(key: key, value: value))
                }
                return .dictionary(entries)
            }
            var values: [DBusValue] = []
            while try !atEnd() { values.append(try read()) }
            return .array(values)
        case UInt8(ascii: "r"), UInt8(ascii: "e"):
            try enter(type, contentSignature)
            var values: [DBusValue] = []
            while try !atEnd() { values.append(try read()) }
            try exit()
            return .structure(values)
        default:
            return try readBasic(t)
        }
    }

    /// Reads all remaining top-level arguments.
    package func readAll() throws -> [DBusValue] {
        var values: [DBusValue] = []
        while try !atEnd() { values.append(try read()) }
        return values
    }

    private func atEnd() throws -> Bool {
        let r = sd_bus_message_at_end(raw, 0)
        guard r >= 0 else { throw BusError(operation: "read message (at end)", errno: -r) }
        return r > 0
    }

    private func enter(_ type: CChar, _ contents: String) throws {
        let r = sd_bus_message_enter_container(raw, type, contents)
        guard r > 0 else { throw BusError(operation: "read message (enter \(contents))", errno: r == 0 ? 61 : -r) }
    }

    private func exit() throws {
        let r = sd_bus_message_exit_container(raw)
        guard r >= 0 else { throw BusError(operation: "read message (exit)", errno: -r) }
    }

    private func readBasic(_ type: UInt8) throws -> DBusValue {
        let t = CChar(bitPattern: type)
        func basic<T>(_ initial: T) throws -> T {
            var value = initial
            let r = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(raw, t, $0) }
            guard r > 0 else {
                throw BusError(
                    operation: "read message (basic \(Character(UnicodeScalar(type))))",
                    errno: r == 0 ? 61 : -r
                )
            }
            return value
        }
        switch type {
        case UInt8(ascii: "b"): return .bool(try basic(Int32(0)) != 0)
        case UInt8(ascii: "y"): return .byte(try basic(UInt8(0)))
        case UInt8(ascii: "n"): return .int16(try basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "h"):
            _ = try basic(Int32(0))
            return .unsupported("h")
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer = try basic(UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            switch type {
            case UInt8(ascii: "s"): return .string(text)
            case UInt8(ascii: "o"): return .objectPath(text)
            default: return .signature(text)
            }
        default:
            let r = sd_bus_message_skip(raw, nil)
            guard r >= 0 else { throw BusError(operation: "read message (skip)", errno: -r) }
            return .unsupported(String(UnicodeScalar(type)))
        }
    }

    /// Reads a Unix fd argument (`h`) and returns a duplicate the caller owns (the message's
    /// own copy closes with the message).
    package func readFileDescriptor() throws -> CInt {
        var fd: CInt = -1
        let r = sd_bus_message_read_basic(raw, CChar(UInt8(ascii: "h")), &fd)
        guard r > 0 else { throw BusError(operation: "read message (unix fd)", errno: r == 0 ? 61 : -r) }
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { throw BusError(operation: "duplicate the received fd", errno: errno) }
        return copy
    }

    // MARK: writing

    func append(_ value: DBusValue) throws {
        switch value {
        case .bool(let v): try appendBasic("b", Int32(v ? 1 : 0))
        case .byte(let v): try appendBasic("y", v)
        case .int16(let v): try appendBasic("n", v)
        case .uint16(let v): try appendBasic("q", v)
        case .int32(let v): try appendBasic("i", v)
        case .uint32(let v): try appendBasic("u", v)
        case .int64(let v): try appendBasic("x", v)
        case .uint64(let v): try appendBasic("t", v)
        case .double(let v): try appendBasic("d", v)
        case .string(let v), .objectPath(let v), .signature(let v):
            let type: UInt8 =
                if case .string = value { UInt8(ascii: "s") } else if case .objectPath = value {
                    UInt8(ascii: "o")
                } else { UInt8(ascii: "g") }
            let r = v.withCString { sd_bus_message_append_basic(raw, CChar(bitPattern: type), $0) }
            guard r >= 0 else { throw BusError(operation: "append", errno: -r) }
        case .variant(let box):
            try appendVariant(box.value)
        default:
            throw BusError(operation: "append \(value)", errno: 22 /* EINVAL */, message: "unsupported value type")
        }
    }

    /// Appends `value` wrapped in a variant (`v`), as Properties.Set expects.
    func appendVariant(_ value: DBusValue) throws {
        guard let signature = value.basicSignature else {
            throw BusError(
                operation: "append variant",
                errno: 22,
                message: "only basic values can be written as variants"
            )
        }
        var r = sd_bus_message_open_container(raw, CChar(UInt8(ascii: "v")), signature)
        guard r >= 0 else { throw BusError(operation: "append variant (open)", errno: -r) }
        try append(value)
        r = sd_bus_message_close_container(raw)
        guard r >= 0 else { throw BusError(operation: "append variant (close)", errno: -r) }
    }

    private func appendBasic<T>(_ type: Character, _ value: T) throws {
        var copy = value
        let r = withUnsafePointer(to: &copy) { sd_bus_message_append_basic(raw, CChar(type.asciiValue!), $0) }
        guard r >= 0 else { throw BusError(operation: "append", errno: -r) }
    }
}
