import Foundation
import LullCore
import Testing

/// The token bucket on a virtual clock: transfers reserve chunks and move when their ticket is
/// due, as the daemon's limiter has them do, with time passing only in the simulation.
@Suite struct TokenBucketTests {
    static let mib = 1 << 20
    static let chunk = 64 << 10

    /// Transfers that each move `bytes` in chunks through one bucket, each asking for its next
    /// chunk once the last was due; returns when each finished, in simulated seconds.
    static func simulate(
        _ bucket: inout TokenBucket,
        transfers: Int,
        bytes: Int,
        changes: [(at: Double, rate: Int64)] = []
    ) -> [Double] {
        var ready = Array(repeating: 0.0, count: transfers)
        var left = Array(repeating: bytes, count: transfers)
        var finished = Array(repeating: 0.0, count: transfers)
        var changes = changes
        while let index = left.indices.filter({ left[$0] > 0 }).min(by: { ready[$0] < ready[$1] }) {
            let now = ready[index]
            while let change = changes.first, change.at <= now {
                bucket.setRate(change.rate, now: change.at)
                changes.removeFirst()
            }
            let size = min(chunk, left[index])
            let ticket = bucket.reserve(size, now: now)
            var due = now + bucket.delay(until: ticket, now: now)
            // A rate change while the chunk waits moves its time: the waiter looks again then.
            while let change = changes.first, change.at < due {
                bucket.setRate(change.rate, now: change.at)
                changes.removeFirst()
                due = change.at + bucket.delay(until: ticket, now: change.at)
            }
            left[index] -= size
            ready[index] = due
            if left[index] == 0 { finished[index] = due }
        }
        return finished
    }

    @Test func oneTransferTakesItsBytesOverTheRate() {
        var bucket = TokenBucket(bytesPerSecond: Int64(2 * Self.mib), now: 0)
        let done = Self.simulate(&bucket, transfers: 1, bytes: 16 * Self.mib)[0]
        // 16 MiB at 2 MiB/s: 8 s, less the quarter second a full bucket lets through at once.
        #expect(abs(done - (8 - TokenBucket.burstSeconds)) < 0.05, "\(done)")
    }

    @Test func transfersSharingABucketSplitItEvenly() {
        var bucket = TokenBucket(bytesPerSecond: Int64(2 * Self.mib), now: 0)
        let done = Self.simulate(&bucket, transfers: 2, bytes: 8 * Self.mib)
        // Together 16 MiB at 2 MiB/s. The first to ask takes the full bucket; after that they
        // take turns, so neither ends ahead by more than the burst and one chunk.
        #expect(done.allSatisfy { abs($0 - (8 - TokenBucket.burstSeconds)) < 0.1 }, "\(done)")
        let lead = TokenBucket.burstSeconds + Double(Self.chunk) / Double(2 * Self.mib)
        #expect(abs(done[0] - done[1]) <= lead + 1e-9, "\(done)")
    }

    @Test func aRateChangeMovesTheWaitingTicketAtOnce() {
        var bucket = TokenBucket(bytesPerSecond: 1024, now: 0)
        // 64 KiB at 1 KiB/s waits about a minute; the rate goes to 1 MiB/s after one second.
        let ticket = bucket.reserve(64 << 10, now: 0)
        #expect(bucket.delay(until: ticket, now: 0) > 60)
        bucket.setRate(1 << 20, now: 1)
        let left = bucket.delay(until: ticket, now: 1)
        #expect(left > 0 && left < 0.07, "\(left)")
        // A slower rate later holds the rest back at the slower pace from the change on.
        var slowed = TokenBucket(bytesPerSecond: Int64(2 * Self.mib), now: 0)
        let finished = Self.simulate(
            &slowed,
            transfers: 1,
            bytes: 8 * Self.mib,
            changes: [(at: 1, rate: Int64(Self.mib))]
        )
        // 2 MiB and a full bucket by t = 1, the rest at 1 MiB/s.
        let expected = 1 + (8 - 2 - 2 * TokenBucket.burstSeconds)
        #expect(abs(finished[0] - expected) < 0.1, "\(finished)")
    }

    @Test func aQuietBucketFillsOnlyToItsBurst() {
        var bucket = TokenBucket(bytesPerSecond: 1 << 20, now: 0)
        // An hour of quiet does not bank an hour of bytes: only a full bucket goes at once.
        let full = Int(bucket.burst)
        let burst = bucket.reserve(full, now: 3600)
        #expect(bucket.delay(until: burst, now: 3600) == 0)
        let next = bucket.reserve(1 << 18, now: 3600)
        #expect(abs(bucket.delay(until: next, now: 3600) - 0.25) < 1e-5)
        // Lowering the rate takes back what the lower rate's bucket could not hold.
        var lowered = TokenBucket(bytesPerSecond: 1 << 20, now: 0)
        lowered.setRate(1024, now: 10)
        let ticket = lowered.reserve(1024, now: 10)
        #expect(abs(lowered.delay(until: ticket, now: 10) - (1 - TokenBucket.burstSeconds)) < 1e-9)
    }
}
