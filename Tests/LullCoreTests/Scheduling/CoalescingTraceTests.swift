import Foundation
import LullCore
import Testing

/// The trace from issue 4: 24 h of 200 small deferrable network jobs on a metered link. Link
/// wake-ups are bursts of transfers more than 10 s apart. Dispatching each job at its earliest
/// time wakes the link for almost every job; coalescing lets held jobs ride along with the next
/// burst and wakes the link only when a held job reaches its release time.
@Suite struct CoalescingTraceTests {
    struct TraceJob {
        var id: Int64
        var earliest: Double
        var deadline: Double
    }

    static let transferSeconds: Double = 2
    static let burstGap: Double = 10

    /// 200 jobs, each may start from a random moment of the day and must start within 1–4 h.
    static func trace(seed: UInt64) -> [TraceJob] {
        var rng = SplitMix(seed: seed)
        return (1...200).map { id in
            let earliest = rng.double(0..<hours(24))
            return TraceJob(id: Int64(id), earliest: earliest, deadline: earliest + rng.double(hours(1)..<hours(4)))
        }
    }

    /// Bursts: transfers whose start is more than `burstGap` after the previous transfer ended.
    static func wakeups(_ starts: [Double]) -> Int {
        var count = 0
        var linkIdleSince = -Double.infinity
        for start in starts.sorted() {
            if start - linkIdleSince > burstGap { count += 1 }
            linkIdleSince = max(linkIdleSince, start + transferSeconds)
        }
        return count
    }

    /// Runs the scheduler event by event: a decision at every `nextWakeup` and every job end,
    /// never polling. Returns each job's start time.
    static func coalesced(_ trace: [TraceJob]) -> (starts: [Int64: Double], decisions: Int, scheduler: JobScheduler) {
        var scheduler = JobScheduler()
        let metered = Worlds.world(metered: true, cellular: true)
        for job in trace {
            scheduler.enqueue(
                QueuedJob(
                    id: JobID(job.id),
                    owner: OwnerID(1000),
                    kind: .push,
                    className: "utility",
                    host: "telemetry\(job.id % 3).example",
                    notBefore: at(job.earliest),
                    deadline: at(job.deadline),
                    expectedBytesUp: 2_000
                ),
                now: at(0)
            )
        }
        var starts: [Int64: Double] = [:]
        var ends: [(time: Double, id: JobID)] = []
        var now = 0.0
        var decisions = 0
        while true {
            let decision = scheduler.decide(world: metered, now: at(now))
            decisions += 1
            for job in decision.start {
                starts[job.id.rawValue] = now
                ends.append((now + transferSeconds, job.id))
            }
            ends.sort { $0.time < $1.time }
            let nextWake = decision.nextWakeup.map { $0.timeIntervalSince(epoch) } ?? .infinity
            let nextEnd = ends.first?.time ?? .infinity
            guard nextWake.isFinite || nextEnd.isFinite else { break }
            now = min(nextWake, nextEnd)
            while let end = ends.first, end.time <= now {
                scheduler.jobFinished(end.id, at: at(end.time))
                ends.removeFirst()
            }
        }
        return (starts, decisions, scheduler)
    }

    @Test func coalescingCutsLinkWakeupsFiveFoldWithoutMissingADeadline() {
        let trace = Self.trace(seed: 2026)
        let eager = Self.wakeups(trace.map(\.earliest))
        let run = Self.coalesced(trace)
        #expect(run.starts.count == trace.count, "every job ran")
        for job in trace {
            guard let start = run.starts[job.id] else { continue }
            #expect(
                start >= job.earliest && start <= job.deadline,
                "job \(job.id) ran at \(start), window \(job.earliest)–\(job.deadline)"
            )
        }
        let coalesced = Self.wakeups(Array(run.starts.values))
        print(
            "coalescing trace: 200 jobs over 24 h on a metered link: \(eager) link wake-ups dispatching each job at its earliest time, \(coalesced) with coalescing (\(run.scheduler.statistics.coalesced) jobs rode along, \(run.decisions) decisions, 0 deadlines missed)"
        )
        #expect(coalesced * 5 <= eager, "\(coalesced) wake-ups with coalescing vs \(eager) eager")
        #expect(run.scheduler.statistics.linkWakeups == coalesced, "the scheduler's own count agrees")
    }

    @Test func coalescingHoldsAcrossTraces() {
        for seed in UInt64(1)...20 {
            let trace = Self.trace(seed: seed)
            let run = Self.coalesced(trace)
            let eager = Self.wakeups(trace.map(\.earliest))
            let coalesced = Self.wakeups(Array(run.starts.values))
            #expect(run.starts.count == 200)
            let missed = trace.filter { job in run.starts[job.id].map { $0 > job.deadline } ?? true }
            #expect(missed.isEmpty, "seed \(seed): deadlines missed by \(missed.map(\.id))")
            #expect(coalesced * 5 <= eager, "seed \(seed): \(coalesced) vs \(eager)")
        }
    }
}
