/// Bytes moved over each kind of link.
public struct LinkBytes: Sendable, Equatable, Codable {
    public var ethernet: Int64 = 0
    public var wifi: Int64 = 0
    public var cellular: Int64 = 0
    public var other: Int64 = 0
    public var unknown: Int64 = 0

    public init() {}

    public subscript(link: LinkType) -> Int64 {
        get {
            switch link {
            case .ethernet: ethernet
            case .wifi: wifi
            case .cellular: cellular
            case .other: other
            case .unknown: unknown
            }
        }
        set {
            switch link {
            case .ethernet: ethernet = newValue
            case .wifi: wifi = newValue
            case .cellular: cellular = newValue
            case .other: other = newValue
            case .unknown: unknown = newValue
            }
        }
    }

    public var total: Int64 { ethernet + wifi + cellular + other + unknown }
}

/// What one job cost, across all its attempts: kept in the job's result.
public struct JobAccounting: Sendable, Equatable, Codable {
    public var bytesDown = LinkBytes()
    public var bytesUp = LinkBytes()
    /// Time spent running (sum over attempts; waiting in the queue does not count).
    public var wallSeconds: Double = 0
    public var attempts: Int = 0
    /// Times a running attempt was stopped because its conditions lapsed; nil when never.
    public var stops: Int?
    /// Daemon CPU time consumed while the job ran. With several jobs running at once, each is
    /// charged the whole daemon's CPU for its running time: an upper bound, not a share.
    public var daemonCPUSeconds: Double = 0

    public init() {}
}

/// Accumulates a job's accounting while it runs. A value type: the daemon keeps one per
/// running job (in its actor) and stores `accounting` with the result.
public struct JobAccountant: Sendable {
    public private(set) var accounting: JobAccounting
    private var attemptStart: ContinuousClock.Instant?
    private var attemptStartCPU: Double = 0

    public init(resuming accounting: JobAccounting = JobAccounting()) {
        self.accounting = accounting
    }

    public var isRunning: Bool { attemptStart != nil }

    /// An attempt begins. `daemonCPUSeconds` is the daemon's CPU time now (`ProcessUsage.cpuSeconds()`).
    public mutating func attemptStarted(at instant: ContinuousClock.Instant = .now, daemonCPUSeconds: Double) {
        if attemptStart != nil { attemptEnded(at: instant, daemonCPUSeconds: daemonCPUSeconds) }
        accounting.attempts += 1
        attemptStart = instant
        attemptStartCPU = daemonCPUSeconds
    }

    public mutating func received(_ bytes: Int64, over link: LinkType) {
        accounting.bytesDown[link] += max(0, bytes)
    }

    public mutating func sent(_ bytes: Int64, over link: LinkType) {
        accounting.bytesUp[link] += max(0, bytes)
    }

    /// The attempt ends (success, failure, cancellation or preemption alike).
    public mutating func attemptEnded(at instant: ContinuousClock.Instant = .now, daemonCPUSeconds: Double) {
        guard let start = attemptStart else { return }
        let elapsed = instant - start
        accounting.wallSeconds += max(0, elapsed.timeInterval)
        accounting.daemonCPUSeconds += max(0, daemonCPUSeconds - attemptStartCPU)
        attemptStart = nil
    }
}
