/// One bandwidth limit as a token bucket, on a clock the caller gives (seconds on a monotonic
/// clock), so the same code paces the daemon and runs in tests on a virtual clock.
///
/// A transfer reserves its bytes and gets a ticket, a position in the bytes ever reserved; it
/// may send once the allowance, which grows at the rate, has reached its ticket. Reserving
/// first and waiting after lets several transfers share one bucket without a queue of their
/// own: each waits for its turn in the order it asked, so a shared limit is split evenly. A
/// change of rate moves every outstanding ticket's time at once, since the time is worked out
/// from the allowance whenever it is asked for.
public struct TokenBucket: Sendable, Equatable {
    /// What fills the bucket after a quiet spell: a twentieth of a second at the rate, so an
    /// idle limit lets the first bytes through at once, while whoever asks first gets too
    /// little of a head start to tilt a shared limit.
    public static let burstSeconds = 0.05

    public private(set) var bytesPerSecond: Double
    /// Bytes allowed so far, as of `updated`; at most `burst` ahead of `reserved`.
    private var allowed: Double
    /// Bytes reserved so far: the ticket of the last reservation.
    private var reserved: Double = 0
    private var updated: Double

    /// A full bucket at `now`.
    public init(bytesPerSecond: Int64, now: Double) {
        self.bytesPerSecond = Double(max(1, bytesPerSecond))
        updated = now
        allowed = 0
        allowed = burst
    }

    /// The most bytes that may go at once after a quiet spell.
    public var burst: Double { bytesPerSecond * Self.burstSeconds }

    /// Reserves `bytes` at `now` and returns their ticket, for `delay(until:now:)`.
    public mutating func reserve(_ bytes: Int, now: Double) -> Double {
        advance(to: now)
        reserved += Double(max(0, bytes))
        return reserved
    }

    /// Seconds from `now` until the bytes of `ticket` may go; 0 when they may go now.
    public func delay(until ticket: Double, now: Double) -> Double {
        let allowance = allowed + bytesPerSecond * max(0, now - updated)
        return max(0, (ticket - allowance) / bytesPerSecond)
    }

    /// Sets a new rate from `now`: what was allowed under the old rate stays allowed, the rest
    /// of every outstanding ticket is paced at the new one.
    public mutating func setRate(_ bytesPerSecond: Int64, now: Double) {
        advance(to: now)
        self.bytesPerSecond = Double(max(1, bytesPerSecond))
        allowed = min(allowed, reserved + burst)
    }

    private mutating func advance(to now: Double) {
        guard now > updated else { return }
        allowed = min(allowed + bytesPerSecond * (now - updated), max(allowed, reserved + burst))
        updated = now
    }
}
