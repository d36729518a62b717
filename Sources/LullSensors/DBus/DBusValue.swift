/// Where a D-Bus source connects.
public enum BusEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS` if set, else /run/dbus/system_bus_socket).
    case system
    /// The calling user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else $XDG_RUNTIME_DIR/bus).
    case user
    /// An explicit address such as `unix:path=/tmp/test-bus/socket` (tests, containers).
    case address(String)

    public var description: String {
        switch self {
        case .system: "system bus"
        case .user: "user bus"
        case .address(let address): address
        }
    }
}

/// A failure talking to D-Bus: a negative errno from sd-bus, or a D-Bus error reply.
public struct BusError: Error, Sendable, CustomStringConvertible, Equatable {
    public var operation: String
    public var errno: Int32
    public var name: String?
    public var message: String?

    public init(operation: String, errno: Int32, name: String? = nil, message: String? = nil) {
        self.operation = operation
        self.errno = errno
        self.name = name
        self.message = message
    }

    static let closed = BusError(operation: "bus connection", errno: 107 /* ENOTCONN */, message: "closed")

    public var description: String {
        var text = "\(operation) failed (errno \(errno))"
        if let name { text += ": \(name)" }
        if let message { text += ": \(message)" }
        return text
    }
}

/// A D-Bus value as read from (or written to) a message. Containers are kept generic; the
/// sources only need basic types, arrays of them, and `a{sv}` dictionaries.
public enum DBusValue: Sendable, Equatable {
    case bool(Bool)
    case byte(UInt8)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case array([DBusValue])
    /// Dictionary entries in wire order (`a{..}`).
    case dictionary([DictionaryEntry])
    case structure([DBusValue])
    /// A variant nested inside a variant.
    case variant(Box)
    /// A Unix fd to send (`h`); sd-bus duplicates it into the message.
    case unixFileDescriptor(Int32)
    /// A value read that the sources never need.
    case unsupported(String)

    public struct DictionaryEntry: Sendable, Equatable {
        public var key: DBusValue
        public var value: DBusValue
    }

    public final class Box: Sendable, Equatable {
        public let value: DBusValue
        public init(_ value: DBusValue) { self.value = value }
        public static func == (lhs: Box, rhs: Box) -> Bool { lhs.value == rhs.value }
    }

    /// Unwraps nested variants.
    public var unwrapped: DBusValue {
        if case .variant(let box) = self { return box.value.unwrapped }
        return self
    }

    public var bool: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    public var string: String? {
        switch unwrapped {
        case .string(let value), .objectPath(let value), .signature(let value): value
        default: nil
        }
    }

    /// Any integer type, widened.
    public var integer: Int64? {
        switch unwrapped {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): Int64(clamping: v)
        default: nil
        }
    }

    public var double: Double? {
        if case .double(let value) = unwrapped { return value }
        return integer.map(Double.init)
    }

    public var array: [DBusValue]? {
        if case .array(let values) = unwrapped { return values }
        return nil
    }

    /// `a{sv}` and friends as a string-keyed dictionary.
    public var stringDictionary: [String: DBusValue]? {
        guard case .dictionary(let entries) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            if let key = entry.key.string { result[key] = entry.value.unwrapped }
        }
        return result
    }

    /// The D-Bus signature of a basic value (used when writing a variant).
    var basicSignature: String? {
        switch self {
        case .bool: "b"
        case .byte: "y"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFileDescriptor: "h"
        default: nil
        }
    }
}
