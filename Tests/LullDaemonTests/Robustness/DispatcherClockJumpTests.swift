import Foundation
import Logging
import LullAPI
import LullCore
import LullStore
import Synchronization
import Testing

@testable import LullDaemon

/// The wall clock as the daemon reads it, with an offset a test can change at any moment: what
/// `date -s` or an NTP step does to a running daemon. (A real jump of the machine's clock
/// would disturb every other process here; a time namespace cannot shift CLOCK_REALTIME.)
final class SettableWallClock: LullClock {
    private let offset = Mutex<TimeInterval>(0)
    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }
    func jump(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

/// No pressure readings: these tests are about time and the store.
struct NoPressureGauge: PressureGauge {
    func read() -> PressureState { .unknown }
    func setHolding(_ holding: Bool) {}
}

/// An engine that only notes when each job started, on the monotonic clock.
struct StartRecorder: TransferEngine {
    let starts: AsyncStream<(JobID, ContinuousClock.Instant)>.Continuation

    func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        starts.yield((job.id, ContinuousClock.now))
        return JobResult(httpStatus: 200)
    }
}

/// The real dispatcher and store, a real monotonic clock and a wall clock that jumps: jobs due
/// 1.5 s and 3 s after submission start then, in real time, whichever way the wall clock was
/// set in between.
@Suite(.serialized) struct DispatcherClockJumpTests {
    @Test(arguments: [3600.0, -3600.0])
    func aWallClockJumpDoesNotMoveNotBefore(jump: TimeInterval) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-clock-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteJobStore(path: directory.appendingPathComponent("lull.sqlite").path)
        let wall = SettableWallClock()
        let (starts, continuation) = AsyncStream.makeStream(of: (JobID, ContinuousClock.Instant).self)
        let dispatcher = Dispatcher(
            store: store,
            engines: [.push: StartRecorder(starts: continuation)],
            policy: .defaults,
            pressure: NoPressureGauge(),
            metrics: DaemonMetrics(),
            clock: wall,
            sleeper: TaskSleeper(),
            logger: Logger(label: "lull.test")
        )

        let began = ContinuousClock.now
        var specs: [NewJob] = []
        for delay in [1.5, 3.0] {
            let submission = JobSubmission(
                kind: .push,
                url: "http://127.0.0.1:9/x",
                body: "x",
                notBefore: wall.now().addingTimeInterval(delay)
            )
            specs.append(
                NewJob(owner: OwnerID(0), spec: try submission.spec().prepared(), createdAt: wall.now())
            )
        }
        let jobs = try await store.insert(specs)
        await dispatcher.enqueue(jobs)
        wall.jump(jump)
        // Anything that makes the dispatcher decide again right after the jump.
        var world = await dispatcher.currentWorld
        world.power = PowerState(onBattery: false, batteryPercent: 80, source: "test")
        await dispatcher.update(world: world)

        var started: [JobID: Duration] = [:]
        let watchdog = Task {
            try await Task.sleep(for: .seconds(15))
            continuation.finish()
        }
        for await (id, at) in starts {
            started[id] = at - began
            if started.count == jobs.count { break }
        }
        watchdog.cancel()
        await dispatcher.drain()

        let first = try #require(started[jobs[0].id], "job due in 1.5 s never started (wall jump \(jump) s)")
        let second = try #require(started[jobs[1].id], "job due in 3 s never started (wall jump \(jump) s)")
        print(
            "robustness: wall clock jump \(jump) s: jobs due after 1.5 s and 3 s started after \(first) and \(second)"
        )
        #expect(first >= .milliseconds(1400) && first < .milliseconds(2500), "due 1.5 s, started after \(first)")
        #expect(second >= .milliseconds(2900) && second < .milliseconds(4000), "due 3 s, started after \(second)")
    }
}
