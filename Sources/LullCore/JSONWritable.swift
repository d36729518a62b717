/// A value that writes its own JSON (see `JSONWriter`), meaning the same as its `Encodable`
/// form under the encoder its writer is for: the job views (the API's encoder), and the small
/// settings objects a job spec carries and the records a state change stores (a default
/// `JSONEncoder`, the store's).
public protocol JSONWritable: Encodable {
    func write(to writer: inout JSONWriter) throws
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
