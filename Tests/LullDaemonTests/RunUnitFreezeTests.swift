import Foundation
import LullAPI
import LullCore
import LullTestSupport
import LullTransfer
import Synchronization
import Testing

@testable import LullDaemon

/// A service manager that runs nothing: a unit "runs" until it is stopped, and every call is
/// written down in order. Its freeze answers late (a busy manager), or refuses; its first
/// `lostStops` stops are lost (a manager that timed out), and a stopped unit ends as `endsAs`;
/// with `endsByItself` it has ended before any stop (which then finds nothing to stop).
final class UnitCallLog: ServiceManager, Sendable {
    let calls = Mutex<[String]>([])
    let freezes: Bool
    let thaws: Bool
    let endsAs: ServiceEnd.Outcome
    let endsByItself: Bool
    private let lostStops: Mutex<Int>
    /// Set once the unit is being followed (its usage read): a pause from then on finds it.
    let followed = Mutex(false)
    private let stopped: AsyncStream<Void>
    private let stop: AsyncStream<Void>.Continuation

    init(
        freezes: Bool,
        thaws: Bool = true,
        lostStops: Int = 0,
        endsAs: ServiceEnd.Outcome = .killed(signal: Int(SIGTERM)),
        endsByItself: Bool = false
    ) {
        self.freezes = freezes
        self.thaws = thaws
        self.lostStops = Mutex(lostStops)
        self.endsAs = endsAs
        self.endsByItself = endsByItself
        (stopped, stop) = AsyncStream.makeStream(of: Void.self)
    }

    private func record(_ call: String) { calls.withLock { $0.append(call) } }

    func startTransient(_ service: TransientService) async throws(JobFailure) { record("start") }
    func start(existing unit: String, jobID: JobID) async throws(JobFailure) { record("start") }
    func end(of unit: String) async -> ServiceEnd {
        for await _ in stopped { break }
        return ServiceEnd(outcome: endsAs)
    }
    func stop(_ unit: String) async -> Bool {
        record("stop")
        let lost = lostStops.withLock { lost in
            defer { lost = max(0, lost - 1) }
            return lost > 0
        }
        if !lost { stop.yield() }
        return !endsByItself
    }
    func freeze(_ unit: String) async -> Bool {
        try? await Task.sleep(for: .milliseconds(200))
        record(freezes ? "freeze" : "freeze refused")
        return freezes
    }
    func thaw(_ unit: String) async -> Bool {
        record(thaws ? "thaw" : "thaw refused")
        return thaws
    }
    func usage(of unit: String) async -> ServiceUsage? {
        followed.withLock { $0 = true }
        return nil
    }
    func release(_ unit: String) async {}
    func endLeftovers(of units: [String]) async -> [String] { [] }
}

/// A dispatcher whose run jobs are units of `manager`, with one job of `submission` running.
func withRunningUnit(
    _ manager: UnitCallLog,
    submission: JobSubmission = JobSubmission(kind: .run, url: "", argv: ["true"]),
    _ body: (Dispatcher, Job, TemporaryStore) async throws -> Void
) async throws {
    let temporary = try TemporaryStore("unit")
    defer { temporary.remove() }
    let runner = RunTransfer(
        logs: RunLogs(stateDirectory: temporary.directory.path),
        settings: RunSettings(),
        manager: manager,
        managerIsSystem: false
    )
    let dispatcher = Dispatcher.forTest(store: temporary.store, engines: [.run: runner])
    let spec = try submission.spec().prepared()
    let jobs = try await temporary.store.insert([NewJob(owner: OwnerID(getuid()), spec: spec, createdAt: Date())])
    await dispatcher.enqueue(jobs)
    try await waitUntil("the unit to be followed") { manager.followed.withLock { $0 } }
    #expect(manager.calls.withLock { $0 }.first == "start")
    let job = try #require(try await temporary.store.job(jobs[0].id))
    try await body(dispatcher, job, temporary)
    await dispatcher.drain()
}

/// Pause and resume of a command on the systemd host go through its manager: the dispatcher
/// waits for the manager's answer before it records anything. Before, the freeze and the thaw
/// were sent from tasks of their own and the pause was recorded at once: a refused freeze still
/// said `paused` while the command ran on, and a quick resume could reach the manager before
/// the freeze and leave the unit frozen while its job said `running`.
@Suite(.serialized) struct RunUnitFreezeTests {
    @Test func aResumeReachesTheManagerAfterThePausesFreeze() async throws {
        let manager = UnitCallLog(freezes: true)
        try await withRunningUnit(manager) { dispatcher, job, _ in
            let paused = try await dispatcher.apply(.pause, to: job).get()
            #expect(paused.state == .paused)
            let resumed = try await dispatcher.apply(.resume, to: paused).get()
            #expect(resumed.state == .running)
            #expect(manager.calls.withLock { $0 } == ["start", "freeze", "thaw"])
            #expect(await dispatcher.runningCount == 1, "the same attempt goes on")
        }
    }

    @Test func aFreezeTheManagerRefusesEndsTheAttemptAsAPauseDoes() async throws {
        let manager = UnitCallLog(freezes: false)
        try await withRunningUnit(manager) { dispatcher, job, _ in
            let paused = try await dispatcher.apply(.pause, to: job).get()
            #expect(paused.state == .paused)
            #expect(manager.calls.withLock { $0 } == ["start", "freeze refused", "stop"])
            #expect(await dispatcher.runningCount == 0, "nothing is left running under a paused job")
        }
    }

    /// The manager refuses the resume's thaw: the job must not say `running` over a frozen unit.
    /// Its attempt is ended (the unit stopped) and it goes back to the queue.
    @Test func aThawTheManagerRefusesEndsTheAttemptAndQueuesTheJob() async throws {
        let manager = UnitCallLog(freezes: true, thaws: false)
        try await withRunningUnit(manager) { dispatcher, job, temporary in
            let paused = try await dispatcher.apply(.pause, to: job).get()
            let resumed = try await dispatcher.apply(.resume, to: paused).get()
            #expect(resumed.state == .queued, "\(resumed.state)")
            #expect(Array(manager.calls.withLock { $0 }.prefix(4)) == ["start", "freeze", "thaw refused", "stop"])
            let events = try await temporary.store.events(after: 0, owner: nil, limit: 100).items
            let requeued = events.last { $0.jobID == job.id && $0.type == .requeued }
            #expect(requeued?.detail?.message?.contains("could not be thawed") == true)
        }
    }
}
