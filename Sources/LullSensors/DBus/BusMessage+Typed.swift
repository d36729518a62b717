import CSystemd

/// Writing values whose D-Bus type is given as a signature, containers included: what a call
/// such as systemd's `StartTransientUnit` (`ssa(sv)a(sa(sv))`) needs, where an empty array
/// still has a type and a variant may hold a structure.
extension BusMessage {
    /// Appends `values` as the consecutive complete types of `signature`.
    func append(_ values: [DBusValue], signature: Substring) throws {
        var rest = signature
        for value in values {
            guard let type = Self.firstCompleteType(of: rest) else {
                throw Self.mismatch("more values than the signature \(signature) holds")
            }
            try append(value, as: type)
            rest = rest.dropFirst(type.count)
        }
        guard rest.isEmpty else { throw Self.mismatch("fewer values than the signature \(signature) holds") }
    }

    /// Appends `value` as the single complete type `type`.
    func append(_ value: DBusValue, as type: Substring) throws {
        switch type.first {
        case "a":
            let element = type.dropFirst()
            try container("a", element) {
                switch value {
                case .array(let items):
                    for item in items { try append(item, as: element) }
                case .dictionary(let entries) where element.first == "{":
                    for entry in entries { try append(.structure([entry.key, entry.value]), as: element) }
                default:
                    throw Self.mismatch("\(value) is not an array of \(element)")
                }
            }
        case "(", "{":
            guard case .structure(let fields) = value else { throw Self.mismatch("\(value) is not a \(type)") }
            let contents = type.dropFirst().dropLast()
            try container(type.first == "(" ? "r" : "e", contents) { try append(fields, signature: contents) }
        case "v":
            let inner = value.unwrappedOnce
            let signature = try Self.signature(of: inner)
            try container("v", Substring(signature)) { try append(inner, as: Substring(signature)) }
        case "h":
            guard case .unixFileDescriptor(let fd) = value else { throw Self.mismatch("\(value) is not a fd") }
            var copy = fd
            let r = sd_bus_message_append_basic(raw, CChar(UInt8(ascii: "h")), &copy)
            guard r >= 0 else { throw BusError(operation: "append fd", errno: -r) }
        default:
            try append(value)
        }
    }

    private func container(_ kind: Character, _ contents: Substring, _ body: () throws -> Void) throws {
        var r = String(contents).withCString { sd_bus_message_open_container(raw, CChar(kind.asciiValue!), $0) }
        guard r >= 0 else { throw BusError(operation: "append (open \(kind)\(contents))", errno: -r) }
        try body()
        r = sd_bus_message_close_container(raw)
        guard r >= 0 else { throw BusError(operation: "append (close \(kind)\(contents))", errno: -r) }
    }

    /// The signature of a value to be put in a variant: basic values, structures, and arrays
    /// whose first element says what they hold.
    static func signature(of value: DBusValue) throws -> String {
        if let basic = value.basicSignature { return basic }
        switch value {
        case .structure(let fields): return "(" + (try fields.map { try signature(of: $0) }.joined()) + ")"
        case .array(let items):
            guard let first = items.first else { throw mismatch("an empty array in a variant has no type") }
            return "a" + (try signature(of: first))
        case .dictionary(let entries):
            guard let first = entries.first else { throw mismatch("an empty dictionary in a variant has no type") }
            return "a{" + (try signature(of: first.key)) + (try signature(of: first.value)) + "}"
        case .variant: return "v"
        default: throw mismatch("\(value) has no D-Bus type")
        }
    }

    /// The first complete type of `signature` (`s`, `a(sv)`, `a{sv}`, `(sbasb)`), or nil.
    static func firstCompleteType(of signature: Substring) -> Substring? {
        guard let first = signature.first else { return nil }
        switch first {
        case "a":
            guard let element = firstCompleteType(of: signature.dropFirst()) else { return nil }
            return signature.prefix(1 + element.count)
        case "(", "{":
            let close: Character = first == "(" ? ")" : "}"
            var depth = 0
            for (offset, character) in signature.enumerated() {
                if character == first { depth += 1 }
                if character == close { depth -= 1 }
                if depth == 0 { return signature.prefix(offset + 1) }
            }
            return nil
        default:
            return signature.prefix(1)
        }
    }

    private static func mismatch(_ message: String) -> BusError {
        BusError(operation: "append", errno: 22 /* EINVAL */, message: message)
    }
}

extension DBusValue {
    /// The value inside one level of variant, or the value itself.
    var unwrappedOnce: DBusValue {
        if case .variant(let box) = self { return box.value }
        return self
    }
}

extension BusContext {
    /// Calls a method whose arguments are written as `signature` says (containers included).
    @discardableResult
    package func call(
        destination: String,
        path: String,
        interface: String,
        member: String,
        signature: String,
        arguments: [DBusValue]
    ) throws -> BusMessage {
        try call(destination: destination, path: path, interface: interface, member: member) { message in
            try message.append(arguments, signature: Substring(signature))
        }
    }
}
