import Foundation
import LullCore
import Testing

/// The fair token bucket on a virtual clock: transfers reserve chunks and move when their
/// ticket is due, as the daemon's limiter has them do, with time passing only in the simulation.
@Suite struct FairTokenBucketTests {
    static let mib = 1 << 20
    static let chunk = 64 << 10

    /// One transfer's part: the bytes it moves, in chunks of `chunk`, each asked for once the
    /// last was due and, when its server is slower than the limit, once the server sent it.
    struct Transfer {
        var bytes: Int
        var chunk = FairTokenBucketTests.chunk
        var serverBytesPerSecond: Double? = nil
        /// When it asks for its first chunk, if later than the simulation's start.
        var joins = 0.0
    }

    /// What a simulation saw of each transfer: when it finished (or the end of the run) and the
    /// bytes it moved.
    struct Outcome {
        var finished: [Double]
        var moved: [Int]
    }

    /// Runs `transfers` through `bucket` from `start` until each is done or `until`, event by
    /// event, waiting as the daemon's limiter does: a transfer reserves its next chunk, sleeps
    /// (at most half a second) until `lead` before its bytes are due and looks again, and sends
    /// once that sleep would be shorter than `early`. At `early` and `lead` 0 it sleeps exactly
    /// until they are due. A rate change wakes every sleeper, as the limiter's next look would.
    static func simulate(
        _ bucket: inout FairTokenBucket<Int>,
        _ transfers: [Transfer],
        from start: Double = 0,
        until end: Double = .infinity,
        early: Double = 0,
        lead: Double = 0,
        changes: [(at: Double, rate: Int64)] = []
    ) -> Outcome {
        let longestSleep = 0.5
        var wake = transfers.map { max(start, $0.joins) }
        var ticket: [Double?] = Array(repeating: nil, count: transfers.count)
        var left = transfers.map(\.bytes)
        var outcome = Outcome(
            finished: Array(repeating: end, count: transfers.count),
            moved: Array(repeating: 0, count: transfers.count)
        )
        var changes = changes
        while let index = left.indices.filter({ left[$0] > 0 }).min(by: { wake[$0] < wake[$1] }), wake[index] < end {
            let now = wake[index]
            while let change = changes.first, change.at <= now {
                bucket.setRate(change.rate, now: change.at)
                changes.removeFirst()
            }
            let size = min(transfers[index].chunk, left[index])
            let due = ticket[index] ?? bucket.reserve(size, of: index, now: now)
            var sleep = min(bucket.delay(until: due, now: now) - lead, longestSleep)
            guard sleep < max(early, 1e-9) else {
                ticket[index] = due
                if let change = changes.first, change.at < now + sleep { sleep = change.at - now }
                wake[index] = now + sleep
                continue
            }
            ticket[index] = nil
            left[index] -= size
            outcome.moved[index] += size
            wake[index] = now + (transfers[index].serverBytesPerSecond.map { Double(size) / $0 } ?? 0)
            if left[index] == 0 { outcome.finished[index] = now }
        }
        return outcome
    }

    @Test func oneTransferTakesItsBytesOverTheRate() {
        var bucket = FairTokenBucket<Int>(bytesPerSecond: Int64(2 * Self.mib), now: 0)
        let done = Self.simulate(&bucket, [Transfer(bytes: 16 * Self.mib)]).finished[0]
        // 16 MiB at 2 MiB/s: 8 s, less the twentieth of a second a full bucket lets through.
        #expect(abs(done - (8 - FairTokenBucket<Int>.burstSeconds)) < 0.05, "\(done)")
    }

    @Test func transfersSharingABucketSplitItEvenly() {
        var bucket = FairTokenBucket<Int>(bytesPerSecond: Int64(2 * Self.mib), now: 0)
        let done = Self.simulate(&bucket, [Transfer(bytes: 8 * Self.mib), Transfer(bytes: 8 * Self.mib)]).finished
        // Together 16 MiB at 2 MiB/s, each at half of it: neither ends ahead by more than the
        // burst and a chunk.
        #expect(done.allSatisfy { abs($0 - (8 - FairTokenBucket<Int>.burstSeconds)) < 0.1 }, "\(done)")
        let lead = FairTokenBucket<Int>.burstSeconds + Double(Self.chunk) / Double(2 * Self.mib)
        #expect(abs(done[0] - done[1]) <= lead + 1e-9, "\(done)")
    }

    /// The failure of a bucket that queues calls in the order they come: with one ticket per
    /// call, a transfer paying for 64 KiB at a time took four times the share of one paying for
    /// 16 KiB, and more once short waits were skipped. Shares follow bytes here, with and
    /// without the daemon's skipping of waits under 20 ms.
    @Test(arguments: [0.0, 0.02])
    func sharesFollowBytesNotChunks(early: Double) {
        var bucket = FairTokenBucket<Int>(bytesPerSecond: Int64(4 * Self.mib), now: 0)
        let transfers = [
            Transfer(bytes: .max, chunk: 64 << 10), Transfer(bytes: .max, chunk: 16 << 10),
            Transfer(bytes: .max, chunk: 1500),
        ]
        let moved = Self.simulate(&bucket, transfers, until: 10, early: early, lead: early > 0 ? 0.005 : 0).moved
        // 40 MiB in 10 s, a third each, give or take what is not shared: the full bucket at
        // the start (which the first to ask takes) and a chunk each side.
        let share = Double(40 * Self.mib) / 3
        let slack = bucket.burst + 2 * Double(64 << 10)
        for bytes in moved { #expect(abs(Double(bytes) - share) <= slack, "\(moved)") }
        #expect(abs(Double(moved.reduce(0, +)) - Double(40 * Self.mib)) <= slack, "\(moved)")
    }

    /// A transfer whose server sends less than its share leaves the rest to the others, and
    /// what it did not use is not banked for later.
    @Test func aSlowTransferLeavesTheRestOfTheLimitToTheOthers() {
        var bucket = FairTokenBucket<Int>(bytesPerSecond: Int64(4 * Self.mib), now: 0)
        let slow = Transfer(bytes: .max, chunk: 16 << 10, serverBytesPerSecond: Double(Self.mib) / 2)
        let moved = Self.simulate(&bucket, [slow, Transfer(bytes: .max)], until: 10, early: 0.02, lead: 0.005).moved
        // The slow one moves its server's 0.5 MiB/s, the other the remaining 3.5 MiB/s.
        #expect(abs(Double(moved[0]) - 5 * Double(Self.mib)) < 0.02 * 5 * Double(Self.mib), "\(moved)")
        #expect(abs(Double(moved[1]) - 35 * Double(Self.mib)) < 0.02 * 35 * Double(Self.mib), "\(moved)")
        // Its server fast from t = 10, the one that was slow gets half from then on: in the first
        // half second no more than half and a chunk, not a catch-up, and half over ten seconds.
        let both = [Transfer(bytes: .max, chunk: 16 << 10), Transfer(bytes: .max)]
        var first = bucket
        let start = Self.simulate(&first, both, from: 10, until: 10.5, early: 0.02, lead: 0.005).moved
        #expect(Double(start[0]) <= Double(Self.mib) + Double(Self.chunk), "\(start)")
        let after = Self.simulate(&bucket, both, from: 10, until: 20, early: 0.02, lead: 0.005).moved
        for bytes in after {
            #expect(abs(Double(bytes) - 20 * Double(Self.mib)) < 0.02 * 20 * Double(Self.mib), "\(after)")
        }
    }

    /// A transfer that ends with bytes reserved and not moved holds the others back no longer
    /// once it is forgotten.
    @Test func aForgottenTransferNoLongerHoldsTheOthersBack() {
        var bucket = FairTokenBucket<Int>(bytesPerSecond: 64 << 10, now: 0)
        _ = bucket.reserve(Int(bucket.burst), of: 0, now: 0)
        // 256 KiB reserved by transfer 1 at 64 KiB/s, then it is cancelled.
        _ = bucket.reserve(256 << 10, of: 1, now: 0)
        let ticket = bucket.reserve(64 << 10, of: 2, now: 0)
        // Shared with the cancelled bytes, 64 KiB takes two seconds; alone, one.
        #expect(abs(bucket.delay(until: ticket, now: 0) - 2) < 1e-9)
        bucket.forget(1)
        #expect(abs(bucket.delay(until: ticket, now: 0) - 1) < 1e-9)
    }

    /// One that joins a running transfer gets half from then on; the one that ran alone keeps
    /// what it had, with nothing taken back.
    @Test func aTransferJoiningPartWayGetsHalfFromThenOn() {
        var bucket = FairTokenBucket<Int>(bytesPerSecond: Int64(4 * Self.mib), now: 0)
        let moved = Self.simulate(
            &bucket,
            [Transfer(bytes: .max), Transfer(bytes: .max, chunk: 16 << 10, joins: 5)],
            until: 10,
            early: 0.02,
            lead: 0.005
        ).moved
        // 20 MiB alone, then 10 MiB each.
        let slack = bucket.burst + 2 * Double(Self.chunk)
        #expect(abs(Double(moved[0]) - 30 * Double(Self.mib)) <= slack, "\(moved)")
        #expect(abs(Double(moved[1]) - 10 * Double(Self.mib)) <= slack, "\(moved)")
    }

    /// A rate change while two transfers are held back paces both at the new rate, still half
    /// each.
    @Test func aRateChangeUnderABacklogKeepsTheSharesEven() {
        var bucket = FairTokenBucket<Int>(bytesPerSecond: Int64(4 * Self.mib), now: 0)
        let moved = Self.simulate(
            &bucket,
            [Transfer(bytes: .max), Transfer(bytes: .max, chunk: 16 << 10)],
            until: 10,
            early: 0.02,
            lead: 0.005,
            changes: [(at: 5, rate: Int64(Self.mib))]
        ).moved
        // 20 MiB in the first five seconds and 5 MiB in the last, half each, give or take the
        // first rate's burst and a chunk each side.
        let slack = Double(4 * Self.mib) * FairTokenBucket<Int>.burstSeconds + 2 * Double(Self.chunk)
        for bytes in moved { #expect(abs(Double(bytes) - 12.5 * Double(Self.mib)) <= slack, "\(moved)") }
    }

    @Test func aRateChangeMovesTheWaitingTicketAtOnce() {
        var bucket = FairTokenBucket<Int>(bytesPerSecond: 1024, now: 0)
        // 64 KiB at 1 KiB/s waits about a minute; the rate goes to 1 MiB/s after one second.
        let ticket = bucket.reserve(64 << 10, of: 0, now: 0)
        #expect(bucket.delay(until: ticket, now: 0) > 60)
        bucket.setRate(1 << 20, now: 1)
        let left = bucket.delay(until: ticket, now: 1)
        #expect(left > 0 && left < 0.07, "\(left)")
        // A slower rate later holds the rest back at the slower pace from the change on.
        var slowed = FairTokenBucket<Int>(bytesPerSecond: Int64(2 * Self.mib), now: 0)
        let finished = Self.simulate(
            &slowed,
            [Transfer(bytes: 8 * Self.mib)],
            changes: [(at: 1, rate: Int64(Self.mib))]
        ).finished
        // 2 MiB and a full bucket by t = 1, the rest at 1 MiB/s.
        let expected = 1 + (8 - 2 - 2 * FairTokenBucket<Int>.burstSeconds)
        #expect(abs(finished[0] - expected) < 0.1, "\(finished)")
    }

    @Test func aQuietBucketFillsOnlyToItsBurst() {
        var bucket = FairTokenBucket<Int>(bytesPerSecond: 1 << 20, now: 0)
        // An hour of quiet does not bank an hour of bytes: only a full bucket goes at once.
        let full = Int(bucket.burst)
        let burst = bucket.reserve(full, of: 0, now: 3600)
        #expect(bucket.delay(until: burst, now: 3600) == 0)
        let next = bucket.reserve(1 << 18, of: 1, now: 3600)
        #expect(abs(bucket.delay(until: next, now: 3600) - 0.25) < 1e-5)
        // Lowering the rate takes back what the lower rate's bucket could not hold.
        var lowered = FairTokenBucket<Int>(bytesPerSecond: 1 << 20, now: 0)
        lowered.setRate(1024, now: 10)
        let ticket = lowered.reserve(1024, of: 0, now: 10)
        #expect(abs(lowered.delay(until: ticket, now: 10) - (1 - FairTokenBucket<Int>.burstSeconds)) < 1e-9)
    }
}
