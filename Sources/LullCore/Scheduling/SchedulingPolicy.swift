/// A concurrency limit (or a byte budget) with where it was configured.
public struct ConfiguredLimit<Value: Sendable & Hashable>: Sendable, Hashable {
    public var value: Value
    public var origin: ConfigOrigin?

    public init(_ value: Value, origin: ConfigOrigin? = nil) {
        self.value = value
        self.origin = origin
    }
}

/// Everything the admin decides about scheduling: the classes and the limits across them.
public struct SchedulingPolicy: Sendable, Equatable {
    /// The classes, in tie-break order (earlier wins a tie in fair share). Must contain `default`:
    /// jobs of a class the policy does not know are scheduled as `default`.
    public var classes: [JobClassPolicy]
    /// `[limits] max_concurrent`: jobs running at once over everything.
    public var maxConcurrent: ConfiguredLimit<Int>
    /// Jobs of one kind running at once.
    public var perKind: [JobKind: ConfiguredLimit<Int>]
    /// Jobs talking to one host running at once (iOS uses 6).
    public var perHost: ConfiguredLimit<Int>?
    /// Jobs of one owner (uid) running at once. Owners also share each class fairly: the owner
    /// with fewer running jobs goes first.
    public var perOwner: ConfiguredLimit<Int>?
    /// Metered bytes one owner may use per local day; past it, its jobs wait (`quota`) on metered links.
    public var perOwnerMeteredBytesPerDay: ConfiguredLimit<Int64>?
    /// A job whose deadline is this close goes before older jobs of its class (earliest deadline first).
    public var urgencyHorizon: Double
    /// A deferrable job held on a costly link is released to run on its own this long before its deadline.
    public var coalescingLead: Double
    /// After the last transfer ends, the link counts as awake this long (the radio tail), so
    /// deferrable jobs still ride along.
    public var linkTail: Double
    /// `[limits] max_bytes_per_second` and `[[limits.bandwidth]]`: the bytes per second all
    /// running jobs together may move, down and up.
    public var bandwidth = BandwidthSchedule.none
    /// `[sensors] idle_after`: seconds logind must have said "idle" before the machine counts
    /// as idle for jobs that require it.
    public var idleAfter = ConfiguredLimit(SchedulingPolicy.defaultIdleAfter)

    /// Five minutes: a person reading or thinking is not away.
    public static let defaultIdleAfter: Double = 300
    /// What `[sensors] idle_after` may be: up to a day.
    public static let idleAfterRange: ClosedRange<Double> = 0...86_400

    public init(
        classes: [JobClassPolicy],
        maxConcurrent: ConfiguredLimit<Int> = ConfiguredLimit(4),
        perKind: [JobKind: ConfiguredLimit<Int>] = [:],
        perHost: ConfiguredLimit<Int>? = ConfiguredLimit(6),
        perOwner: ConfiguredLimit<Int>? = nil,
        perOwnerMeteredBytesPerDay: ConfiguredLimit<Int64>? = nil,
        urgencyHorizon: Double = 15 * 60,
        coalescingLead: Double = 2 * 60,
        linkTail: Double = 10
    ) {
        self.classes = classes
        self.maxConcurrent = maxConcurrent
        self.perKind = perKind
        self.perHost = perHost
        self.perOwner = perOwner
        self.perOwnerMeteredBytesPerDay = perOwnerMeteredBytesPerDay
        self.urgencyHorizon = urgencyHorizon
        self.coalescingLead = coalescingLead
        self.linkTail = linkTail
    }

    /// The five built-in classes with their default limits.
    public static let defaults = SchedulingPolicy(
        classes: [.interactive, .default, .utility, .background, .maintenance])

    public func classPolicy(named name: String) -> JobClassPolicy? { classes.first { $0.name == name } }

    /// The most dispatches (job starts, over all classes) that can pass while the oldest eligible
    /// job of `className` keeps waiting, provided its class stays eligible and under its limits
    /// throughout: Σ over the other classes c of (⌈weight(c) / weight(class)⌉ + 1).
    public func starvationBound(forClass className: String) -> Int? {
        guard let own = classPolicy(named: className) else { return nil }
        return classes.filter { $0.name != className }.reduce(0) { sum, other in
            sum + (other.weight + own.weight - 1) / own.weight + 1
        }
    }
}
