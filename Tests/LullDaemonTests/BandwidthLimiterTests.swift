import Foundation
import LullCore
import Synchronization
import Testing

@testable import LullDaemon

/// The daemon's limiter on a virtual clock: its sleeps move the clock, so a window that closes
/// while a transfer is held back is seen at the next look, not after the old rate's wait.
@Suite struct BandwidthLimiterTests {
    /// Monotonic and wall time that only sleeps move.
    final class VirtualTime: MonotonicClock, LullClock, Sleeper {
        let origin: Date
        private let elapsedSeconds = Mutex(0.0)

        init(origin: Date) { self.origin = origin }

        var seconds: Double { elapsedSeconds.withLock { $0 } }
        func elapsed() -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }
        func now() -> Date { origin.addingTimeInterval(seconds) }
        func sleep(for duration: Duration) async throws {
            elapsedSeconds.withLock { $0 += max(0, duration / .seconds(1)) }
        }
    }

    /// 2026-03-02 17:59:50 UTC.
    static let beforeSix = Date(timeIntervalSince1970: 1_772_474_390)

    static func policy(window: DailyWindow, rate: Int64, allDay: Int64? = nil) -> SchedulingPolicy {
        var policy = SchedulingPolicy.defaults
        policy.bandwidth = BandwidthSchedule(
            bytesPerSecond: allDay,
            windows: [.init(window: window, bytesPerSecond: rate)]
        )
        return policy
    }

    static func job(_ id: Int64, rate: Int64? = nil) -> Job {
        Job(
            id: JobID(id),
            owner: OwnerID(0),
            spec: JobSpec(.fetch(FetchJob(url: "http://h/x", destination: "/tmp/x")), maxBytesPerSecond: rate),
            createdAt: Date()
        )
    }

    /// Two transfers under one limit get even shares whatever the size of the chunks they pay
    /// for: one reading 64 KiB at a time and one 16 KiB, at 4 MiB/s (short waits skipped, as
    /// ever), counted over ten seconds after a quarter of a second in which the full bucket of
    /// the start, which whoever asks first takes, is spent.
    @Test func sharesAreEvenWhateverTheChunkSizes() async throws {
        var policy = SchedulingPolicy.defaults
        policy.bandwidth = BandwidthSchedule(bytesPerSecond: 4 << 20)
        let time = LockstepTime(transfers: 2)
        let limiter = BandwidthLimiter(policy: policy, time: time)
        let (counted, deadline) = (0.25, 10.25)
        let moved = try await withThrowingTaskGroup(of: Int.self) { group in
            for (id, chunk) in [(Int64(11), 64 << 10), (Int64(12), 16 << 10)] {
                let throttle = limiter.begin(Self.job(id))
                group.addTask {
                    defer { time.leave() }
                    var bytes = 0
                    while time.seconds < deadline {
                        try await throttle.admit(chunk) {}
                        if time.seconds >= counted, time.seconds < deadline { bytes += chunk }
                    }
                    return bytes
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for id in [Int64(11), 12] { limiter.end(JobID(id)) }
        print("bandwidth limiter: 64 KiB and 16 KiB chunks under 4 MiB/s moved \(moved) bytes in 10 s")
        for bytes in moved { #expect(abs(Double(bytes) / 10 - Double(2 << 20)) < Double(2 << 20) * 0.03, "\(moved)") }
    }

    /// A limited transfer sleeps at most once every `shortestSleep` of its bytes, whatever its
    /// chunks: 80 MiB in 16 KiB chunks at 8 MiB/s take ten seconds and at most about 500 sleeps.
    @Test func aLimitedTransferWakesAtMostFiftyTimesASecond() async throws {
        let time = VirtualTime(origin: Self.beforeSix)
        var policy = SchedulingPolicy.defaults
        policy.bandwidth = BandwidthSchedule(bytesPerSecond: 8 << 20)
        let limiter = BandwidthLimiter(policy: policy, time: time)
        let throttle = limiter.begin(Self.job(3))
        let sleeps = Mutex(0)
        for _ in 0..<(80 * 64) { try await throttle.admit(16 << 10) { sleeps.withLock { $0 += 1 } } }
        #expect(abs(time.seconds - 10) < 0.1, "\(time.seconds)")
        let most = 10 / BandwidthLimiter.shortestSleep
        #expect(Double(sleeps.withLock { $0 }) <= most * 1.05, "\(sleeps.withLock { $0 }) sleeps")
        limiter.end(JobID(3))
    }

    @Test func aClosingWindowFreesAHeldBackTransferAtOnce() async throws {
        let time = VirtualTime(origin: Self.beforeSix)
        let limiter = BandwidthLimiter(
            policy: Self.policy(window: DailyWindow(fromHour: 8, toHour: 18), rate: 1024),
            time: time
        )
        let throttle = limiter.begin(Self.job(1))
        #expect(limiter.limits(of: JobID(1)) == [.daemon: 1024])
        // 64 KiB at 1 KiB/s is a minute's wait; the window closes after ten seconds.
        let waits = Mutex(0)
        try await throttle.admit(64 << 10) { waits.withLock { $0 += 1 } }
        #expect(time.seconds >= 10 && time.seconds <= 10 + BandwidthLimiter.longestSleep + 0.01, "\(time.seconds)")
        #expect(waits.withLock { $0 } >= 20)
        #expect(limiter.limits(of: JobID(1)).isEmpty)
        // Outside the window nothing holds it.
        let before = time.seconds
        try await throttle.admit(64 << 20) {}
        #expect(time.seconds == before)
        limiter.end(JobID(1))
    }

    @Test func anOpeningWindowSlowsARunningTransfer() async throws {
        let time = VirtualTime(origin: Self.beforeSix)
        let limiter = BandwidthLimiter(
            policy: Self.policy(window: DailyWindow(fromHour: 18, toHour: 6), rate: 1 << 20, allDay: 8 << 20),
            time: time
        )
        let throttle = limiter.begin(Self.job(2, rate: 4 << 20))
        // Under the daemon's 8 MiB/s and its own 4 MiB/s: the slower one paces it.
        #expect(limiter.limits(of: JobID(2)) == [.daemon: 8 << 20, .job(JobID(2)): 4 << 20])
        for _ in 0..<(40 * 16) { try await throttle.admit(64 << 10) {} }
        // 40 MiB at 4 MiB/s: ten seconds (less the full bucket it started with), up to 18:00.
        #expect(abs(time.seconds - (10 - FairTokenBucket<JobID>.burstSeconds)) < 0.05, "\(time.seconds)")
        while time.seconds < 10 { try await throttle.admit(64 << 10) {} }
        // From 18:00 the night window's 1 MiB/s holds: 4 MiB more take four seconds.
        let sixPM = time.seconds
        for _ in 0..<(4 * 16) { try await throttle.admit(64 << 10) {} }
        #expect(abs(time.seconds - sixPM - 4) < 0.1, "\(time.seconds - sixPM)")
        #expect(limiter.limits(of: JobID(2)) == [.daemon: 1 << 20, .job(JobID(2)): 4 << 20])
        // A reload that lifts the daemon's limit leaves the job's own.
        limiter.update(policy: .defaults)
        #expect(limiter.limits(of: JobID(2)) == [.job(JobID(2)): 4 << 20])
        limiter.end(JobID(2))
        #expect(limiter.limits(of: JobID(2)).isEmpty)
    }
}
