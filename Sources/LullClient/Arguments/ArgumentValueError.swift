/// A value typed after a command-line flag that cannot be used, saying what to type instead.
/// `lullctl` reports it as a usage error that names the flag.
public struct ArgumentValueError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
