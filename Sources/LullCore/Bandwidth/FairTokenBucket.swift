/// One bandwidth limit shared by the transfers under it, fairly by bytes, on a clock the caller
/// gives (seconds on a monotonic clock), so the same code paces the daemon and runs in tests on
/// a virtual clock.
///
/// The rate is handed out as in generalised processor sharing: every transfer with bytes
/// reserved and not yet due (a *backlogged* one) is served alike, so `served`, the bytes each
/// of them has been allowed, grows at the rate divided by how many there are. A reservation's
/// ticket is the service at which its bytes are due: its transfer's last ticket, or `served` if
/// that has passed, plus the bytes. Shares thus follow bytes, not calls: a transfer that pays
/// for 64 KiB at a time and one that pays for 16 KiB get the same rate. A transfer that does not
/// keep up (its server is slower) drops out of the backlog, and the rest share its part; it
/// cannot bank what it left, so it cannot burst past them later.
///
/// A quiet spell fills the bucket to `burst`, which the next bytes asked for spend at once. A
/// change of rate moves every outstanding ticket's time at once, since the time is worked out
/// whenever it is asked for.
public struct FairTokenBucket<Transfer: Hashable & Sendable>: Sendable, Equatable {
    /// What fills the bucket after a quiet spell: a twentieth of a second at the rate, so an
    /// idle limit lets the first bytes through at once, while whoever asks first gets too
    /// little of a head start to tilt a shared limit.
    public static var burstSeconds: Double { 0.05 }

    public private(set) var bytesPerSecond: Double
    /// The bytes each backlogged transfer has been allowed so far, as of `updated`.
    private var served: Double = 0
    /// The ticket of each transfer's last reservation while it is still ahead of `served`.
    private var due: [Transfer: Double] = [:]
    /// Bytes a quiet spell allowed and nobody spent yet, at most `burst`; while any transfer
    /// is backlogged it is 0, since time then goes to the backlog.
    private var spare: Double
    private var updated: Double

    /// A full bucket at `now`.
    public init(bytesPerSecond: Int64, now: Double) {
        self.bytesPerSecond = Double(max(1, bytesPerSecond))
        updated = now
        spare = 0
        spare = burst
    }

    /// The most bytes that may go at once after a quiet spell.
    public var burst: Double { bytesPerSecond * Self.burstSeconds }

    /// Reserves `bytes` of `transfer` at `now` and returns their ticket, for `delay(until:now:)`.
    public mutating func reserve(_ bytes: Int, of transfer: Transfer, now: Double) -> Double {
        advance(to: now)
        var bytes = Double(max(0, bytes))
        let start = max(served, due[transfer] ?? served)
        if start == served {
            let spent = min(spare, bytes)
            spare -= spent
            bytes -= spent
        }
        let ticket = start + bytes
        if ticket > served { due[transfer] = ticket }
        return ticket
    }

    /// Seconds from `now` until the bytes of `ticket` may go; 0 when they may go now.
    public func delay(until ticket: Double, now: Double) -> Double {
        var bucket = self
        bucket.advance(to: now)
        guard ticket > bucket.served else { return 0 }
        var seconds = 0.0
        var reached = bucket.served
        var backlogged = bucket.due.count
        for next in bucket.due.values.sorted() {
            let end = min(next, ticket)
            seconds += (end - reached) * Double(backlogged) / bucket.bytesPerSecond
            reached = end
            if reached >= ticket { return seconds }
            backlogged -= 1
        }
        // A ticket beyond every transfer's (its own transfer was forgotten) is served alone.
        return seconds + (ticket - reached) / bucket.bytesPerSecond
    }

    /// Forgets `transfer`, which ended: bytes it reserved and did not move, or moved ahead of its
    /// share, no longer count against the others.
    public mutating func forget(_ transfer: Transfer) {
        due[transfer] = nil
    }

    /// Sets a new rate from `now`: what was allowed under the old rate stays allowed, the rest
    /// of every outstanding ticket is paced at the new one.
    public mutating func setRate(_ bytesPerSecond: Int64, now: Double) {
        advance(to: now)
        self.bytesPerSecond = Double(max(1, bytesPerSecond))
        spare = min(spare, burst)
    }

    /// Hands out the time since `updated`: to the backlog, shared alike, the last to be served
    /// leaving it as `served` reaches its ticket; once none is left, to `spare`.
    private mutating func advance(to now: Double) {
        guard now > updated else { return }
        var budget = bytesPerSecond * (now - updated)
        updated = now
        var backlogged = due.count
        for next in due.values.sorted() {
            let needed = (next - served) * Double(backlogged)
            if budget < needed {
                served += budget / Double(backlogged)
                budget = 0
                break
            }
            served = next
            budget -= needed
            backlogged -= 1
        }
        if budget > 0 { spare = min(burst, spare + budget) }
        // Rebuilt only when a transfer left the backlog: most calls find none did, and `delay`
        // then works on its copy without copying the table.
        if backlogged < due.count { due = due.filter { $0.value > served } }
    }
}
