import Foundation
import Logging
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Synchronization
import Testing

@testable import LullDaemon

/// The wall clock as the daemon reads it, with an offset a test can change at any moment: what
/// `date -s` or an NTP step does to a running daemon. (A real jump of the machine's clock
/// would disturb every other process here; a time namespace cannot shift CLOCK_REALTIME.)
final class SettableWallClock: LullClock {
    private let base: any LullClock
    private let offset = Mutex<TimeInterval>(0)
    init(_ base: any LullClock) { self.base = base }
    func now() -> Date { base.now().addingTimeInterval(offset.withLock { $0 }) }
    func jump(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

/// No pressure readings: these tests are about time and the store.
struct NoPressureGauge: PressureGauge {
    func read() -> PressureState { .unknown }
    func setHolding(_ holding: Bool) {}
}

/// An engine that only notes when each job started, on the virtual monotonic clock.
final class StartRecorder: TransferEngine {
    let time: ManualTime
    let starts = Mutex<[JobID: Duration]>([:])

    init(time: ManualTime) { self.time = time }

    func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        let now = time.elapsed()
        starts.withLock { $0[job.id] = now }
        return JobResult(httpStatus: 200)
    }
}

/// The real dispatcher and store on a virtual monotonic clock, and a wall clock that jumps: jobs
/// due 1.5 s and 3 s after submission start then, whichever way the wall clock was set in between.
@Suite(.serialized) struct DispatcherClockJumpTests {
    @Test(arguments: [3600.0, -3600.0])
    func aWallClockJumpDoesNotMoveNotBefore(jump: TimeInterval) async throws {
        let temporary = try TemporaryStore("clock")
        defer { temporary.remove() }
        let store = temporary.store
        let time = ManualTime()
        let wall = SettableWallClock(time)
        let recorder = StartRecorder(time: time)
        let dispatcher = Dispatcher.forTest(
            store: store,
            engines: [.push: recorder],
            clock: wall,
            monotonic: time,
            sleeper: time
        )

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

        for (job, due) in zip(jobs, [Duration.milliseconds(1500), .milliseconds(3000)]) {
            // Asleep on its timer: whatever the jump made it decide is decided.
            try await waitUntil("the dispatcher waits for job \(job.id)") { time.sleeping >= 1 }
            time.advance(by: due - time.elapsed())
            try await waitUntil("job \(job.id) due after \(due) starts") {
                recorder.starts.withLock { $0[job.id] != nil }
            }
        }
        await dispatcher.drain()

        let started = recorder.starts.withLock { $0 }
        let first = try #require(started[jobs[0].id], "job due in 1.5 s never started (wall jump \(jump) s)")
        let second = try #require(started[jobs[1].id], "job due in 3 s never started (wall jump \(jump) s)")
        #expect(first == .milliseconds(1500), "due 1.5 s, started after \(first)")
        #expect(second == .milliseconds(3000), "due 3 s, started after \(second)")
    }
}
