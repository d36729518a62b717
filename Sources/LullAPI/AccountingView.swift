import LullCore

/// What a job cost, on the wire: bytes by link type in each direction, running time,
/// attempts and the daemon's CPU time while it ran.
public struct AccountingView: Codable, Sendable, Equatable {
    /// Bytes per link type (`ethernet`, `wifi`, `cellular`, `other`, `unknown`), zero entries left out.
    public var bytesDown: [String: Int64]
    public var bytesUp: [String: Int64]
    public var wallSeconds: Double
    public var attempts: Int
    /// Times the job was stopped on lost conditions; absent when never.
    public var stops: Int?
    public var daemonCPUSeconds: Double

    enum CodingKeys: String, CodingKey {
        case bytesDown = "bytes_down"
        case bytesUp = "bytes_up"
        case wallSeconds = "wall_seconds"
        case attempts, stops
        case daemonCPUSeconds = "daemon_cpu_seconds"
    }

    public init(_ accounting: JobAccounting) {
        bytesDown = Self.nonZero(accounting.bytesDown)
        bytesUp = Self.nonZero(accounting.bytesUp)
        wallSeconds = (accounting.wallSeconds * 1000).rounded() / 1000
        attempts = accounting.attempts
        stops = accounting.stops
        daemonCPUSeconds = (accounting.daemonCPUSeconds * 1000).rounded() / 1000
    }

    private static func nonZero(_ bytes: LinkBytes) -> [String: Int64] {
        var byLink: [String: Int64] = [:]
        for link in LinkType.allCases where bytes[link] > 0 { byLink[link.rawValue] = bytes[link] }
        return byLink
    }
}
