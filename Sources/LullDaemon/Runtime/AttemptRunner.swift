import Foundation
import Logging
import LullCore

/// Runs one attempt of a job with its kind's engine, in the task that holds the job's slot:
/// progress goes out at most once per interval (`ProgressReporter`) to the dispatcher and the
/// store, resume points are stored as the engine reaches them, and the attempt's `AttemptMeter`
/// counts what it moves. Cancelling the task interrupts the attempt.
struct AttemptRunner: Sendable {
    let engine: any TransferEngine
    let store: any JobStore
    let clock: any LullClock
    let sleeper: any Sleeper
    /// Least time between two stored progress updates of one job.
    let progressInterval: TimeInterval
    let metrics: DaemonMetrics
    let logger: Logger
    /// What progress intervals are measured on: the scheduling time line, which a wall-clock
    /// step does not move (on the wall clock, a step back held every report for its length).
    var intervals: any LullClock = SchedulingTimeline(wall: SystemClock())

    /// Runs the attempt of `job` (already recorded as started). `progressed` hears each report
    /// before it is stored.
    func run(
        _ job: Job,
        meter: AttemptMeter,
        progressed: @escaping @Sendable (TransferProgress) async -> Void
    ) async -> AttemptOutcome {
        metrics.jobStarted(kind: job.spec.kind, jobClass: job.spec.jobClass)
        let fields = job.spec.payload.contents.journalFields.mapValues { Logger.MetadataValue.string($0) }
        logger.info("\(JobLogLine.started(job))", metadata: JobLogLine.metadata(job, fields))
        let id = job.id
        let (store, clock) = (store, clock)
        let reporter = ProgressReporter(interval: progressInterval, clock: intervals, sleeper: sleeper) { progress in
            await progressed(progress)
            let update = JobUpdate(
                id: id,
                from: [.running],
                to: .running,
                event: .progress,
                time: clock.now(),
                progress: progress
            )
            _ = try? await store.apply(update)
        }
        let context = TransferContext(
            progress: { progress in
                meter.observe(progress)
                reporter.report(progress)
            },
            checkpoint: { resume in await Self.checkpoint(resume, of: id, store: store, clock: clock) },
            validators: { [store] in await Self.storedValidators(for: job, store: store) }
        )
        // The outcome says where the transfer got to: a report still held back goes nowhere.
        defer { reporter.close() }
        do {
            return .succeeded(try await engine.run(job, context: context))
        } catch {
            if Task.isCancelled { return .interrupted }
            return .failed(
                error as? JobFailure
                    ?? JobFailure(code: "internal_error", message: "unexpected error: \(error)", retryable: false)
            )
        }
    }

    /// The one kind-specific step: a fetch asks the server whether what it fetched last time
    /// to the same place changed (`If-None-Match`, `If-Modified-Since`).
    private static func storedValidators(for job: Job, store: any JobStore) async -> FetchValidators? {
        guard let key = job.spec.payload.contents.conditionalFetch else { return nil }
        return try? await store.fetchValidators(owner: job.owner, url: key.url, destination: key.destination)
    }

    /// Records how to resume; the event says from where, so a watcher knows what a crash would
    /// cost. A pause is recorded before its attempt winds down and saves what it received, as
    /// for a stop: that last checkpoint is kept in the state the command left (paused, or queued
    /// by a resume right behind it). A cancelled job's is refused: its partial file goes.
    private static func checkpoint(
        _ resume: ResumeState,
        of id: JobID,
        store: any JobStore,
        clock: any LullClock
    ) async {
        var update = JobUpdate(
            id: id,
            from: [.running],
            to: .running,
            event: .progress,
            time: clock.now(),
            message: resume.offset == 0
                ? "resumable: the server allows resuming; nothing received yet"
                : "resumable from byte \(resume.offset)",
            resume: resume
        )
        for _ in 0..<3 {
            guard case .conflict(let latest)? = try? await store.apply(update),
                [.paused, .queued].contains(latest.state)
            else { return }
            (update.from, update.state) = ([latest.state], latest.state)
        }
    }
}
