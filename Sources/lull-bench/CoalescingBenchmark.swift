import Foundation
import LullCore
import LullTestSupport

/// Issue 4's trace: 24 h of 200 small deferrable network jobs on a metered link. Counts link
/// wake-ups (bursts of transfers more than 10 s apart) when the scheduler coalesces, against
/// dispatching every job at its earliest time; run on the pure scheduler with a virtual clock.
enum CoalescingBenchmark {
    struct Outcome {
        var eager: Int
        var coalesced: Int
        var missed: Int
        var rodeAlong: Int
    }

    static let transfer: Double = 2
    static let gap: Double = 10

    static func run(quick: Bool, progress: (String) -> Void) -> String {
        let seeds: [UInt64] = Array(1...(quick ? 5 : 20))
        var outcomes: [Outcome] = []
        for seed in seeds {
            progress("coalescing trace, seed \(seed)")
            outcomes.append(simulate(seed: seed))
        }
        let eager = outcomes.map { Double($0.eager) }
        let coalesced = outcomes.map { Double($0.coalesced) }
        let ratios = outcomes.map { Double($0.coalesced) / Double($0.eager) }
        let worst = ratios.max() ?? 1
        let missed = outcomes.reduce(0) { $0 + $1.missed }
        let rode = outcomes.map { Double($0.rodeAlong) }
        return """
            | measurement (200 jobs over 24 h, metered cellular link, \(seeds.count) traces) | coalescing (Lull) | each job at its earliest time (peer) | ratio | target | verdict |
            |---|---|---|---|---|---|
            | link wake-ups per trace, median (min–max) | \(fmt(coalesced)) | \(fmt(eager)) | \(String(format: "%.3f", BenchReport.median(ratios))) (worst \(String(format: "%.3f", worst))) | ≤ 0.200 | \(BenchReport.verdict(worst <= 0.2)) |
            | deadlines missed, all traces | \(missed) | 0 | — | 0 | \(BenchReport.verdict(missed == 0)) |
            | jobs that rode along with another burst, per trace, median | \(String(format: "%.0f", BenchReport.median(rode))) | — | — | — | — |

            Method: each trace has 200 push jobs of 2 s, each allowed to start at a random moment of the
            day and due 1–4 h later (seeded, deterministic). The peer dispatches every job at its earliest
            moment. Lull's `JobScheduler` (defaults, class `utility`, deferrable because of the deadline)
            runs event-driven on a virtual clock: a decision at each `nextWakeup` and each job end,
            nothing else. A wake-up is a transfer starting more than 10 s after the link last went quiet.
            The verdict takes the worst trace.
            \(BenchReport.machine(quick: quick))
            """
    }

    private static func fmt(_ values: [Double]) -> String {
        String(format: "%.0f (%.0f–%.0f)", BenchReport.median(values), values.min() ?? 0, values.max() ?? 0)
    }

    /// Counts bursts: starts more than `gap` after the previous transfer ended.
    static func bursts(_ starts: [Double]) -> Int {
        var quietSince = -Double.infinity
        var count = 0
        for start in starts.sorted() {
            if start > quietSince + gap { count += 1 }
            quietSince = max(quietSince, start + transfer)
        }
        return count
    }

    static func simulate(seed: UInt64) -> Outcome {
        var random = SeededGenerator(seed: seed)
        let origin = Date(timeIntervalSince1970: 1_767_225_600)
        let windows: [(earliest: Double, due: Double)] = (0..<200).map { _ in
            let earliest = Double.random(in: 0..<86_400, using: &random)
            return (earliest, earliest + Double.random(in: 3_600..<14_400, using: &random))
        }
        var scheduler = JobScheduler()
        for (index, window) in windows.enumerated() {
            scheduler.enqueue(
                QueuedJob(
                    id: JobID(Int64(index + 1)),
                    owner: OwnerID(1000),
                    kind: .push,
                    className: "utility",
                    host: "upload\(index % 4).example",
                    notBefore: origin.addingTimeInterval(window.earliest),
                    deadline: origin.addingTimeInterval(window.due),
                    expectedBytesUp: 4_096
                ),
                now: origin
            )
        }
        let cellular = WorldSnapshot(
            power: PowerState(onBattery: false, source: "trace"),
            network: NetworkState(
                connectivity: .online,
                metered: true,
                cellular: true,
                interface: "wwan0",
                source: "trace"
            )
        )
        var clock = 0.0
        var started: [Int: Double] = [:]
        var finishing: [(at: Double, id: JobID)] = []
        // Bounded: every job starts once; each loop either starts one, ends one or advances time.
        for _ in 0..<100_000 {
            let decision = scheduler.decide(world: cellular, now: origin.addingTimeInterval(clock))
            for job in decision.start {
                started[Int(job.id.rawValue) - 1] = clock
                finishing.append((clock + transfer, job.id))
            }
            finishing.sort { $0.at < $1.at }
            let wake = decision.nextWakeup?.timeIntervalSince(origin) ?? .infinity
            let next = min(wake, finishing.first?.at ?? .infinity)
            guard next.isFinite else { break }
            clock = max(clock, next)
            while let first = finishing.first, first.at <= clock {
                scheduler.jobFinished(first.id, at: origin.addingTimeInterval(first.at))
                finishing.removeFirst()
            }
        }
        let missed = windows.indices.filter { index in started[index].map { $0 > windows[index].due } ?? true }.count
        return Outcome(
            eager: bursts(windows.map(\.earliest)),
            coalesced: bursts(Array(started.values)),
            missed: missed,
            rodeAlong: scheduler.statistics.coalesced
        )
    }
}
