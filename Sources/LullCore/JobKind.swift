/// What a job does with the network.
public enum JobKind: String, Sendable, Codable, CaseIterable {
    /// Download a URL into a file.
    case fetch
    /// Send a small inline payload.
    case push
    /// Send a file.
    case upload
}
