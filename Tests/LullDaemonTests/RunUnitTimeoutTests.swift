import Foundation
import LullAPI
import LullCore
import LullTestSupport
import LullTransfer
import Testing

@testable import LullDaemon

/// A command run as a unit is held to its total timeout by lulld, not by the unit's
/// `RuntimeMaxSec=`: systemd counted that while the unit was frozen and cannot move it, so a
/// command paused past its timeout was killed as soon as it was resumed. Here, as on the process
/// host, a pause stops the clock.
@Suite(.serialized) struct RunUnitTimeoutTests {
    @Test func aUnitPastItsTimeoutIsStoppedAndTheJobFailsWithTotalTimeout() async throws {
        let manager = UnitCallLog(freezes: true)
        try await withRunningUnit(manager, timeout: 1) { dispatcher, job, temporary in
            let failed = try await ended(job, in: temporary)
            #expect(failed.failure?.code == "total_timeout", "\(String(describing: failed.failure))")
            #expect(manager.calls.withLock { $0 } == ["start", "stop"])
        }
    }

    @Test func aPauseDoesNotCountTowardsTheTimeout() async throws {
        let manager = UnitCallLog(freezes: true)
        try await withRunningUnit(manager, timeout: 2) { dispatcher, job, temporary in
            let paused = try await dispatcher.apply(.pause, to: job).get()
            #expect(paused.state == .paused)
            // Paused for longer than the whole timeout: the unit is left frozen.
            try await Task.sleep(for: .seconds(3))
            #expect(manager.calls.withLock { $0 } == ["start", "freeze"])
            let resumedAt = ContinuousClock.now
            let resumed = try await dispatcher.apply(.resume, to: paused).get()
            #expect(resumed.state == .running)
            let failed = try await ended(job, in: temporary)
            #expect(failed.failure?.code == "total_timeout", "\(String(describing: failed.failure))")
            #expect(manager.calls.withLock { $0 } == ["start", "freeze", "thaw", "stop"])
            // What was left of the 2 s before the pause (at least 1.5 s: the pause came right
            // after the start) ran on after the resume.
            #expect(ContinuousClock.now - resumedAt >= .seconds(1.5))
        }
    }

    /// A dispatcher whose run jobs are units of `manager`, with one job running that may run
    /// `timeout` seconds and is not retried.
    private func withRunningUnit(
        _ manager: UnitCallLog,
        timeout: Double,
        _ body: (Dispatcher, Job, TemporaryStore) async throws -> Void
    ) async throws {
        let temporary = try TemporaryStore("unit-timeout")
        defer { temporary.remove() }
        let runner = RunTransfer(
            logs: RunLogs(stateDirectory: temporary.directory.path),
            settings: RunSettings(),
            manager: manager,
            managerIsSystem: false
        )
        let dispatcher = Dispatcher.forTest(store: temporary.store, engines: [.run: runner])
        let submission = JobSubmission(
            kind: .run,
            url: "",
            retry: RetrySettings(maxAttempts: 1),
            timeouts: TimeoutSettings(totalSeconds: timeout),
            argv: ["sleep", "300"]
        )
        let spec = try submission.spec().prepared()
        let jobs = try await temporary.store.insert([NewJob(owner: OwnerID(getuid()), spec: spec, createdAt: Date())])
        await dispatcher.enqueue(jobs)
        try await waitUntil("the unit to be followed") { manager.followed.withLock { $0 } }
        let job = try #require(try await temporary.store.job(jobs[0].id))
        try await body(dispatcher, job, temporary)
        await dispatcher.drain()
    }

    private func ended(_ job: Job, in temporary: TemporaryStore) async throws -> Job {
        var ended: Job?
        try await waitUntil("job \(job.id) to end", timeout: .seconds(10)) {
            ended = try await temporary.store.job(job.id)
            return ended?.state == .failed
        }
        return try #require(ended)
    }
}
