/// A helper server process (tus, TLS) that did not come up.
public struct ServerProcessError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
