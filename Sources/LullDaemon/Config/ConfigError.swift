/// Problems found in a config file, each with where it is and which key it is about.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public struct Problem: Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int?
        public var key: String?
        public var message: String

        public var description: String {
            let place = line.map { "\(file):\($0)" } ?? file
            return key.map { "\(place): \($0): \(message)" } ?? "\(place): \(message)"
        }
    }

    public var problems: [Problem]

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
