import Foundation
import LullCore
import LullSensors
import Synchronization

/// The daemon's bandwidth limits while jobs run: one `FairTokenBucket` per limit in force (the
/// daemon's, each class's, each running job's own), shared by every running job under it by
/// bytes, whatever the size of the chunks each pays for. A job's bytes are reserved in every
/// bucket over it and go when the slowest allows.
///
/// The rates follow the policy and the clock: a reload (`update(policy:)`) and a window that
/// opens or closes change them at the next reservation or wait of any job, so running jobs move
/// to a new rate at once. A wait is slept on the event loops' timers (`Sleeper`) in pieces of at
/// most `longestSleep`, each followed by a fresh look at the rates; nothing wakes while no job
/// is held back. A lock rather than an actor: the common case, a job under no limit, costs one
/// uncontended lock per chunk and no hop between executors.
final class BandwidthLimiter: Sendable {
    /// The longest one sleep of a held-back transfer, after which the rates are looked at again.
    static let longestSleep = 0.5
    /// A wait shorter than this is not slept: the bytes go, and the debt they leave in the bucket
    /// (against their own job: others' shares are not touched) lengthens its next wait instead.
    /// A limited transfer thus wakes at most about fifty times a second whatever its chunks, and
    /// keeps its rate over any longer span.
    static let shortestSleep = 0.02
    /// How long before its bytes are due a held-back transfer is woken. It sends them while it
    /// is still in its buckets' backlog: woken after, it would have dropped out for the time it
    /// overslept, and the others would have had its share meanwhile.
    static let wakeLead = 0.005
    /// How long a rate on a schedule is trusted before the local time zone is read again.
    static let longestReview = 60.0

    private let state: Mutex<State>
    private let sleeper: any Sleeper
    private let monotonic: any MonotonicClock
    private let wall: any LullClock
    private let localTime: @Sendable (Date) -> LocalTime

    init(
        policy: SchedulingPolicy,
        sleeper: any Sleeper,
        monotonic: any MonotonicClock = SystemMonotonicClock(),
        wall: any LullClock = SystemClock(),
        localTime: @escaping @Sendable (Date) -> LocalTime = SystemTimeZone.localTime(at:)
    ) {
        state = Mutex(State(policy: policy))
        self.sleeper = sleeper
        self.monotonic = monotonic
        self.wall = wall
        self.localTime = localTime
    }

    /// The throttle of `job`'s attempt; `end(_:)` must follow when the attempt is over.
    func begin(_ job: Job) -> any TransferThrottle {
        let running = RunningJob(className: job.spec.jobClass, ownRate: job.spec.maxBytesPerSecond)
        state.withLock { state in
            state.jobs[job.id] = running
            state.reviewAt = -.infinity
        }
        return JobThrottle(limiter: self, job: job.id)
    }

    /// Forgets an attempt that ended, with its own limit. What it reserved and did not move, or
    /// moved ahead of its share, no longer holds the others back.
    func end(_ id: JobID) {
        state.withLock { state in
            state.jobs[id] = nil
            for scope in Array(state.buckets.keys) { state.buckets[scope]?.bucket.forget(id) }
            state.reviewAt = -.infinity
        }
    }

    /// A reloaded policy: its rates hold from the next reservation or wait of any running job.
    func update(policy: SchedulingPolicy) {
        state.withLock { state in
            state.policy = policy
            // A reload reads the time zone again, as the dispatcher does.
            state.zone = nil
            state.reviewAt = -.infinity
        }
    }

    /// The rates over `id` now, by scope; empty when nothing limits it.
    func limits(of id: JobID) -> [BandwidthScope: Int64] {
        let now = seconds()
        return state.withLock { state in
            review(&state, now: now)
            return (state.scopes[id] ?? []).reduce(into: [:]) { limits, scope in
                limits[scope] = state.buckets[scope].map { Int64($0.bucket.bytesPerSecond) }
            }
        }
    }

    /// Returns once `bytes` of `id` may move under every bucket over it.
    fileprivate func admit(_ bytes: Int, for id: JobID, waiting: () -> Void) async throws {
        let now = seconds()
        let tickets = state.withLock { state -> [Ticket] in
            review(&state, now: now)
            return (state.scopes[id] ?? []).compactMap { scope in
                guard var entry = state.buckets[scope] else { return nil }
                let ticket = Ticket(
                    scope: scope,
                    generation: entry.generation,
                    position: entry.bucket.reserve(bytes, of: id, now: now)
                )
                state.buckets[scope] = entry
                return ticket
            }
        }
        guard !tickets.isEmpty else { return }
        while true {
            let now = seconds()
            let delay = state.withLock { state -> Double in
                review(&state, now: now)
                // A bucket that went (its limit was lifted) or was made anew holds nothing back.
                return tickets.reduce(0) { longest, ticket in
                    guard let entry = state.buckets[ticket.scope], entry.generation == ticket.generation else {
                        return longest
                    }
                    return max(longest, entry.bucket.delay(until: ticket.position, now: now))
                }
            }
            let sleep = min(delay - Self.wakeLead, Self.longestSleep)
            guard sleep >= Self.shortestSleep else { return }
            waiting()
            try await sleeper.sleep(for: .microseconds(Int64(sleep * 1e6)))
        }
    }

    private func seconds() -> Double {
        let elapsed = monotonic.elapsed().components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    /// Sets every bucket to the rate in force, when a rate may have changed since the last look.
    private func review(_ state: inout State, now: Double) {
        guard now >= state.reviewAt else { return }
        let scheduled =
            !state.policy.bandwidth.windows.isEmpty || state.policy.classes.contains { !$0.bandwidth.windows.isEmpty }
        let date = wall.now()
        let local = scheduled ? zone(&state, at: date) : .utc
        var rates: [BandwidthScope: Int64] = [:]
        state.scopes = [:]
        for (id, job) in state.jobs {
            let limits = state.policy.bandwidthLimits(
                of: id,
                className: job.className,
                ownRate: job.ownRate,
                at: date,
                localTime: local
            )
            rates.merge(limits) { first, _ in first }
            state.scopes[id] = Array(limits.keys)
        }
        for scope in Array(state.buckets.keys) where rates[scope] == nil { state.buckets[scope] = nil }
        for (scope, rate) in rates {
            if var entry = state.buckets[scope] {
                if entry.bucket.bytesPerSecond != Double(rate) {
                    entry.bucket.setRate(rate, now: now)
                    state.buckets[scope] = entry
                }
            } else {
                state.nextGeneration += 1
                state.buckets[scope] = Entry(
                    generation: state.nextGeneration,
                    bucket: FairTokenBucket(bytesPerSecond: rate, now: now)
                )
            }
        }
        state.reviewAt = .infinity
        if scheduled {
            let change = state.policy.nextBandwidthChange(after: date, localTime: local)
            let wait = min(change.map { $0.timeIntervalSince(date) } ?? Self.longestReview, Self.longestReview)
            state.reviewAt = now + max(0, wait)
        }
    }

    /// The local time rule, read again once the next offset change it knew of has passed.
    private func zone(_ state: inout State, at date: Date) -> LocalTime {
        if let zone = state.zone, date < zone.knownUntil { return zone.rule }
        let rule = localTime(date)
        let knownUntil = rule.changes.last?.at ?? date.addingTimeInterval(LocalTime.observationHorizon)
        state.zone = (rule, knownUntil)
        return rule
    }

    private struct RunningJob {
        var className: String
        var ownRate: Int64?
    }

    private struct Entry {
        /// Tells a bucket made anew from the one a ticket was drawn on.
        var generation: Int
        var bucket: FairTokenBucket<JobID>
    }

    private struct Ticket {
        var scope: BandwidthScope
        var generation: Int
        var position: Double
    }

    private struct State {
        var policy: SchedulingPolicy
        var jobs: [JobID: RunningJob] = [:]
        /// The limits over each running job, as of the last review.
        var scopes: [JobID: [BandwidthScope]] = [:]
        var buckets: [BandwidthScope: Entry] = [:]
        var nextGeneration = 0
        var zone: (rule: LocalTime, knownUntil: Date)?
        /// When the rates must be looked at again, on the monotonic clock.
        var reviewAt = -Double.infinity

        init(policy: SchedulingPolicy) { self.policy = policy }
    }
}

/// One attempt's throttle: the limiter, asked for its job.
private struct JobThrottle: TransferThrottle {
    let limiter: BandwidthLimiter
    let job: JobID

    func admit(_ bytes: Int, waiting: () -> Void) async throws {
        try await limiter.admit(bytes, for: job, waiting: waiting)
    }
}
