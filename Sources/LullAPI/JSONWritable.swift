import Foundation
import LullCore

/// A view that writes its own JSON (see `JSONWriter`), meaning the same as its `Encodable` form.
public protocol JSONWritable: Encodable {
    func write(to writer: inout JSONWriter) throws
}

extension JSONWritable {
    /// The whole JSON document for this value.
    public func jsonBytes() throws -> [UInt8] {
        var writer = JSONWriter(encoder: WireJSON.encoder)
        try write(to: &writer)
        return writer.bytes
    }
}

extension JSONWriter {
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
}
