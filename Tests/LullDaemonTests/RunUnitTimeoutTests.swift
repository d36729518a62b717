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
        try await withRunningUnit(manager, timeout: 1) { _, job, temporary in
            let failed = try await ended(job, in: temporary)
            #expect(failed.failure?.code == "total_timeout", "\(String(describing: failed.failure))")
            #expect(manager.calls.withLock { $0 } == ["start", "stop"])
        }
    }

    /// A stop the manager lost (a D-Bus timeout) is sent again until the unit ends.
    @Test func aLostStopIsSentAgain() async throws {
        let manager = UnitCallLog(freezes: true, lostStops: 1)
        try await withRunningUnit(manager, timeout: 1) { _, job, temporary in
            let failed = try await ended(job, in: temporary, within: .seconds(15))
            #expect(failed.failure?.code == "total_timeout", "\(String(describing: failed.failure))")
            #expect(manager.calls.withLock { $0 } == ["start", "stop", "stop"])
        }
    }

    /// However the stopped command ends (it may exit 0 on SIGTERM), it ran past its timeout,
    /// as on the process host; but a kill at its memory limit, or an end of its own before the
    /// stop, keeps that end.
    @Test(arguments: [
        (ServiceEnd.Outcome.exited(0), false, JobState.failed, "total_timeout"),
        (ServiceEnd.Outcome.exited(0), true, JobState.succeeded, nil),
        (ServiceEnd.Outcome.memoryLimit, false, JobState.failed, "memory_limit"),
    ])
    func theEndOfAStoppedUnit(end: ServiceEnd.Outcome, byItself: Bool, state: JobState, code: String?) async throws {
        let manager = UnitCallLog(freezes: true, endsAs: end, endsByItself: byItself)
        try await withRunningUnit(manager, timeout: 1) { _, job, temporary in
            let done = try await ended(job, in: temporary, as: state)
            #expect(done.failure?.code == code, "\(String(describing: done.failure))")
        }
    }

    @Test func aPauseDoesNotCountTowardsTheTimeout() async throws {
        let manager = UnitCallLog(freezes: true)
        try await withRunningUnit(manager, timeout: 4) { dispatcher, job, temporary in
            let paused = try await dispatcher.apply(.pause, to: job).get()
            #expect(paused.state == .paused)
            // Paused for longer than the whole timeout: the unit is left frozen.
            try await Task.sleep(for: .seconds(5))
            #expect(manager.calls.withLock { $0 } == ["start", "freeze"])
            let resumedAt = ContinuousClock.now
            let resumed = try await dispatcher.apply(.resume, to: paused).get()
            #expect(resumed.state == .running)
            let failed = try await ended(job, in: temporary)
            #expect(failed.failure?.code == "total_timeout", "\(String(describing: failed.failure))")
            #expect(manager.calls.withLock { $0 } == ["start", "freeze", "thaw", "stop"])
            // What was left of the 4 s before the pause ran on after the resume: the pause came
            // right after the start (within the fake's 0.2 s freeze and a busy machine's delays).
            #expect(ContinuousClock.now - resumedAt >= .seconds(2))
        }
    }

    /// `withRunningUnit` with a job that may run `timeout` seconds and is not retried.
    private func withRunningUnit(
        _ manager: UnitCallLog,
        timeout: Double,
        _ body: (Dispatcher, Job, TemporaryStore) async throws -> Void
    ) async throws {
        let submission = JobSubmission(
            kind: .run,
            url: "",
            retry: RetrySettings(maxAttempts: 1),
            timeouts: TimeoutSettings(totalSeconds: timeout),
            argv: ["sleep", "300"]
        )
        try await LullDaemonTests.withRunningUnit(manager, submission: submission, body)
    }

    private func ended(
        _ job: Job,
        in temporary: TemporaryStore,
        as state: JobState = .failed,
        within timeout: Duration = .seconds(10)
    ) async throws -> Job {
        var ended: Job?
        try await waitUntil("job \(job.id) to be \(state)", timeout: timeout) {
            ended = try await temporary.store.job(job.id)
            return ended?.state == state
        }
        return try #require(ended)
    }
}
