/// Daemon-wide settings of run jobs (`[run]`), and where their logs go.
public struct RunSettings: Sendable, Equatable {
    /// `[run] max_log_bytes`: the most bytes of output one job's log keeps (its tail).
    public var maxLogBytes: Int64
    /// An attempt without `timeouts.total_seconds` may take this long (`[transfers] total_timeout`).
    public var totalTimeout: Double

    public static let maxLogBytesRange: ClosedRange<Int64> = 0...(1 << 40)

    public init(maxLogBytes: Int64 = 16 << 20, totalTimeout: Double = 7 * 24 * 3600) {
        self.maxLogBytes = maxLogBytes
        self.totalTimeout = totalTimeout
    }
}
