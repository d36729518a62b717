/// Where a policy setting came from, so an explanation can cite it: the file, the line and the
/// key ("/etc/lull/lull.toml:14", `classes.background.min_battery`). The config loader fills it;
/// a setting left at its built-in default has no origin.
public struct ConfigOrigin: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// The full key as written in the file, e.g. `classes.background.min_battery`.
    public var key: String

    public init(file: String, line: Int? = nil, key: String) {
        self.file = file
        self.line = line
        self.key = key
    }

    /// `file:line`, or the file alone when the line is unknown.
    public var location: String { line.map { "\(file):\($0)" } ?? file }

    public var description: String { "\(key) at \(location)" }
}
