import Foundation
import LullCore
import Synchronization
import Testing

@testable import LullDaemon

/// Virtual time for several transfers at once: a sleeper waits until every transfer taking part
/// is asleep, then time jumps to the earliest wake-up and the sleepers due by then go on. So
/// shares come out as the limiter makes them, not as the test machine's scheduler does.
final class LockstepTime: MonotonicClock, LullClock, Sleeper {
    private struct State {
        var now = 0.0
        var awake: Int
        var sleepers: [(wake: Double, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state: Mutex<State>
    let origin = Date(timeIntervalSince1970: 1_772_474_390)

    init(transfers: Int) { state = Mutex(State(awake: transfers)) }

    var seconds: Double { state.withLock { $0.now } }
    func elapsed() -> Duration { .microseconds(Int64((seconds * 1e6).rounded())) }
    func now() -> Date { origin.addingTimeInterval(seconds) }

    func sleep(for duration: Duration) async throws {
        await withCheckedContinuation { continuation in
            let due = state.withLock { state in
                state.awake -= 1
                state.sleepers.append((state.now + max(0, duration / .seconds(1)), continuation))
                return Self.advance(&state)
            }
            for continuation in due { continuation.resume() }
        }
    }

    /// A transfer that is done no longer holds time back.
    func leave() {
        let due = state.withLock { state in
            state.awake -= 1
            return Self.advance(&state)
        }
        for continuation in due { continuation.resume() }
    }

    /// Once nobody is awake: time moves to the earliest wake-up and those due wake.
    private static func advance(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard state.awake == 0, let next = state.sleepers.map(\.wake).min() else { return [] }
        state.now = max(state.now, next)
        let now = state.now
        let due = state.sleepers.filter { $0.wake <= now }.map(\.continuation)
        state.sleepers.removeAll { $0.wake <= now }
        state.awake += due.count
        return due
    }
}

extension BandwidthLimiter {
    /// A limiter on virtual time: its sleeps, its monotonic and its wall clock are all `time`,
    /// and the local time is UTC.
    convenience init(policy: SchedulingPolicy, time: some MonotonicClock & LullClock & Sleeper) {
        self.init(policy: policy, sleeper: time, monotonic: time, wall: time, localTime: { _ in .utc })
    }
}

/// One job under the daemon's limit, its class's and its own at once, beside others under some
/// of them: each limit is shared by bytes among the jobs under it, and a job moves at the
/// slowest of its own shares, leaving what it does not take to the others.
@Suite struct BandwidthLimiterScopesTests {
    @Test func aJobUnderThreeLimitsGoesAtTheSlowestAndTheOthersShareTheRest() async throws {
        var policy = SchedulingPolicy.defaults
        policy.bandwidth = BandwidthSchedule(bytesPerSecond: 8 << 20)
        var bulk = JobClassPolicy(name: "bulk", maxConcurrent: 4, weight: 1)
        bulk.bandwidth = BandwidthSchedule(bytesPerSecond: 4 << 20)
        policy.classes.append(bulk)
        // A: bulk, its own 1 MiB/s. B: bulk. C: the default class, under the daemon's only.
        let jobs = [
            Self.job(1, jobClass: "bulk", rate: 1 << 20), Self.job(2, jobClass: "bulk"), Self.job(3),
        ]
        let time = LockstepTime(transfers: jobs.count)
        let limiter = BandwidthLimiter(policy: policy, time: time)
        let throttles = jobs.map { limiter.begin($0) }
        #expect(
            limiter.limits(of: JobID(1)) == [.daemon: 8 << 20, .jobClass("bulk"): 4 << 20, .job(JobID(1)): 1 << 20]
        )
        #expect(limiter.limits(of: JobID(3)) == [.daemon: 8 << 20])

        // Counted from 2 s to 12 s, after the start's burst and the shares settle.
        let moved = try await withThrowingTaskGroup(of: (Int, Double).self) { group in
            for (index, throttle) in throttles.enumerated() {
                group.addTask {
                    defer { time.leave() }
                    var bytes = 0
                    while time.seconds < 12 {
                        try await throttle.admit(64 << 10) {}
                        if time.seconds >= 2, time.seconds < 12 { bytes += 64 << 10 }
                    }
                    return (index, Double(bytes) / 10 / Double(1 << 20))
                }
            }
            return try await group.reduce(into: [Double](repeating: 0, count: jobs.count)) { $0[$1.0] = $1.1 }
        }
        print("bandwidth limiter: MiB/s under daemon 8, class 4 and own 1 (A), class 4 (B), daemon 8 (C): \(moved)")
        // A at its own 1 MiB/s; B the class's other 3; C the daemon's remaining 4.
        #expect(abs(moved[0] - 1) < 0.05, "A moved \(moved[0]) MiB/s")
        #expect(abs(moved[1] - 3) < 0.15, "B moved \(moved[1]) MiB/s")
        #expect(abs(moved[2] - 4) < 0.2, "C moved \(moved[2]) MiB/s")
        for job in jobs { limiter.end(job.id) }
    }

    static func job(_ id: Int64, jobClass: String = JobClassName.default, rate: Int64? = nil) -> Job {
        Job(
            id: JobID(id),
            owner: OwnerID(0),
            spec: JobSpec(
                .fetch(FetchJob(url: "http://h/\(id)", destination: "/tmp/\(id)")),
                jobClass: jobClass,
                maxBytesPerSecond: rate
            ),
            createdAt: Date()
        )
    }
}
