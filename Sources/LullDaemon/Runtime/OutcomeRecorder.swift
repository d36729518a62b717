import Foundation
import Logging
import LullCore

/// Writes what becomes of jobs so that none of it is lost: an attempt's start and end, a retry,
/// a requeue after an interruption, an expiry. Once a change is written it is logged, counted in
/// the metrics and, for a final state, handed to the completion hooks. The dispatcher's memory
/// follows what this returns: the store decides.
struct OutcomeRecorder: Sendable {
    let store: any JobStore
    let engines: [JobKind: any TransferEngine]
    let clock: any LullClock
    let sleeper: any Sleeper
    let metrics: DaemonMetrics
    let logger: Logger
    let hooks: CompletionHooks?
    /// Raised by the dispatcher's drain: see `durably`.
    var stopping = StoppingFlag()

    /// An outcome as stored: the job, nil when a command got there first (the job is cancelled
    /// or paused; that command settled the quota and the log), and a periodic job's next
    /// occurrence when one was created.
    struct Stored {
        var ended: Job?
        var successor: Job?
    }

    /// `queued → running`, counted as an attempt; nil when the job was no longer queued. While
    /// the store cannot write, this waits, holding the job's slot so the job is not forgotten.
    func started(_ id: JobID) async -> Job? {
        let update = JobUpdate(
            id: id,
            from: [.queued],
            to: .running,
            event: .started,
            time: clock.now(),
            countsAsAttempt: true
        )
        guard case .applied(let job) = await durably(update)?.outcome else { return nil }
        return job
    }

    func succeeded(_ job: Job, result: JobResult, next: PeriodicSuccessor?) async -> Stored {
        let update = JobUpdate(
            id: job.id,
            from: [.running],
            to: .succeeded,
            event: .succeeded,
            time: clock.now(),
            progress: result.bytes.map { TransferProgress(bytesDone: $0, bytesTotal: $0) },
            result: result,
            message: next?.announcement
        )
        let stored = await store(update, for: job, successor: next)
        guard let ended = stored.ended else { return stored }
        metrics.jobFinished(
            kind: job.spec.kind,
            outcome: "succeeded",
            reason: result.notModified == true ? "not_modified" : nil
        )
        metrics.runAttemptEnded(jobClass: job.spec.jobClass, result: result)
        var fields = JobLogLine.usageFields(result)
        fields["bytes"] = "\(result.bytes ?? 0)"
        logger.info("\(JobLogLine.succeeded(job, bytes: result.bytes))", metadata: JobLogLine.metadata(job, fields))
        runHook(ended)
        return stored
    }

    /// A paused job keeps its resume data and its place in the quota, as for success.
    func failed(_ job: Job, failure: JobFailure, accounting: JobAccounting, next: PeriodicSuccessor?) async -> Stored {
        let update = JobUpdate(
            id: job.id,
            from: [.running],
            to: .failed,
            event: .failed,
            time: clock.now(),
            result: failure.result(with: accounting),
            failure: failure,
            message: next?.announcement
        )
        let stored = await store(update, for: job, successor: next)
        guard let ended = stored.ended else { return stored }
        metrics.jobFinished(kind: job.spec.kind, outcome: "failed", reason: failure.code)
        if let result = failure.result { metrics.runAttemptEnded(jobClass: job.spec.jobClass, result: result) }
        await engines[job.spec.kind]?.discardResumeData(of: job)
        var fields = JobLogLine.usageFields(failure.result)
        fields["error_code"] = "\(failure.code)"
        fields["error"] = "\(failure.message)"
        logger.warning("\(JobLogLine.failed(job, failure))", metadata: JobLogLine.metadata(job, fields))
        runHook(ended)
        return stored
    }

    /// Back to the queue until `delay` has passed; the job as stored, with its retry time.
    func retrying(_ job: Job, after failure: JobFailure, in delay: TimeInterval) async -> Job? {
        let update = JobUpdate(
            id: job.id,
            from: [.running],
            to: .queued,
            event: .retrying,
            time: clock.now(),
            failure: failure,
            message: "attempt \(job.attempts) failed (\(failure.code)); retrying in \(String(format: "%.1f", delay)) s",
            retryAt: clock.now().addingTimeInterval(delay)
        )
        guard case .applied(let updated) = await durably(update)?.outcome else { return nil }
        metrics.jobFinished(kind: job.spec.kind, outcome: "retrying", reason: failure.code)
        if let result = failure.result { metrics.runAttemptEnded(jobClass: job.spec.jobClass, result: result) }
        var fields = JobLogLine.usageFields(failure.result)
        fields["error_code"] = "\(failure.code)"
        fields["error"] = "\(failure.message)"
        fields["delay_s"] = "\(delay)"
        logger.notice("\(JobLogLine.retrying(job, failure, in: delay))", metadata: JobLogLine.metadata(job, fields))
        return updated
    }

    /// Stopped because its conditions lapsed: back to the queue with its resume data, counted
    /// as a stop, not an attempt (no backoff either).
    func stopped(_ job: Job, because reason: WaitingReason.Code) async -> Job? {
        let update = JobUpdate(
            id: job.id,
            from: [.running],
            to: .queued,
            event: .stopped,
            time: clock.now(),
            message: AttemptInterruption.conditionsLost(reason).message,
            interruptsAttempt: true,
            stop: reason
        )
        guard let stopped = await store(update, for: job).ended else { return nil }
        metrics.jobStopped(kind: job.spec.kind, reason: reason)
        logger.notice(
            "\(JobLogLine.stopped(job, because: reason, stops: stopped.stops))",
            metadata: JobLogLine.metadata(job, ["reason": "\(reason.rawValue)", "stops": "\(stopped.stops)"])
        )
        return stopped
    }

    /// Back to the queue with its resume data; the attempt does not count.
    func requeued(_ job: Job, because interruption: AttemptInterruption) async -> Job? {
        let update = JobUpdate(
            id: job.id,
            from: [.running],
            to: .queued,
            event: .requeued,
            time: clock.now(),
            message: interruption.message,
            interruptsAttempt: true
        )
        guard let requeued = await store(update, for: job).ended else { return nil }
        logger.info(
            "\(JobLogLine.requeued(job, because: interruption.message))",
            metadata: JobLogLine.metadata(job, ["reason": "\(interruption.logReason)"])
        )
        return requeued
    }

    /// The scheduler has let the job go already: an expiry lost to a full disk would leave it
    /// queued in the store and nowhere in memory until the next start.
    func expired(_ id: JobID) async -> Job? {
        let update = JobUpdate(
            id: id,
            from: [.queued],
            to: .expired,
            event: .expired,
            time: clock.now(),
            message: "the deadline passed before the job could start (on_deadline = expire)"
        )
        guard case .applied(let job) = await durably(update)?.outcome else { return nil }
        metrics.jobFinished(kind: job.spec.kind, outcome: "expired", reason: "deadline")
        // A job that had attempts (stopped, or waiting to retry) may hold a partial download.
        await engines[job.spec.kind]?.discardResumeData(of: job)
        logger.notice(
            "\(JobLogLine.name(job)) expired: its deadline passed before it could start",
            metadata: JobLogLine.metadata(job)
        )
        runHook(job)
        return job
    }

    /// A cancel the store has recorded: the rest of its effects.
    func cancelled(_ job: Job) async {
        metrics.jobFinished(kind: job.spec.kind, outcome: "cancelled", reason: nil)
        await engines[job.spec.kind]?.discardResumeData(of: job)
        logger.info("\(JobLogLine.name(job)) cancelled", metadata: JobLogLine.metadata(job))
        runHook(job)
    }

    /// A job reached a final state: start its completion hook, if it names one.
    private func runHook(_ job: Job) {
        guard let hooks, job.spec.onCompleteUnit != nil else { return }
        Task { await hooks.run(for: job) }
    }

    /// Records an outcome with a periodic job's next occurrence.
    private func store(_ update: JobUpdate, for job: Job, successor: PeriodicSuccessor? = nil) async -> Stored {
        guard let (outcome, created) = await durably(update, creating: successor?.job) else { return Stored() }
        if let created {
            logger.info(
                "next occurrence queued",
                metadata: [
                    "job_id": "\(created.id)", "previous_job_id": "\(job.id)",
                    "not_before": "\(created.spec.notBefore.map { "\($0)" } ?? "-")",
                ]
            )
        }
        guard case .applied(let stored) = outcome else { return Stored(successor: created) }
        return Stored(ended: stored, successor: created)
    }

    /// An attempt's end cannot be recorded over a pause (a frozen command killed, or ended by its
    /// total timeout on the systemd host): the job stays paused and a resume runs it again. The
    /// store says nothing of it, so the log does.
    private func refusedOverAPause(_ update: JobUpdate, _ latest: Job) {
        guard latest.state == .paused, [.succeeded, .failed, .retrying].contains(update.event) else { return }
        let how = update.failure.map { "\($0.code): \($0.message)" } ?? "it succeeded"
        logger.notice(
            "job \(update.id)'s attempt ended while it was paused (\(how)); it stays paused, and a resume runs it again",
            metadata: ["job_id": "\(update.id)"]
        )
    }

    /// Applies a change of state that must not be lost (with the successor it creates, if any).
    /// When the store cannot write (a full disk), the change waits in this task and is tried
    /// again, with a pause growing to 5 s, until it is written; nil only when the task is
    /// cancelled first (a stop or a command; a job left `running` is requeued at the next
    /// start, as after a crash).
    func durably(
        _ update: JobUpdate,
        creating successor: NewJob? = nil
    ) async -> (outcome: JobUpdateOutcome, successor: Job?)? {
        var pause = Duration.milliseconds(100)
        var failures = 0
        while true {
            do {
                let (outcome, created) = try await store.apply(update, creating: successor)
                if case .conflict(let latest) = outcome { refusedOverAPause(update, latest) }
                if failures > 0 {
                    logger.notice(
                        "recorded job \(update.id)'s \(update.event.rawValue) after the store recovered (\(failures + 1) tries)",
                        metadata: ["job_id": "\(update.id)", "tries": "\(failures + 1)"]
                    )
                }
                return (outcome, created)
            } catch let unreadable as UnreadableJob {
                // The job's row no longer reads (a manual edit, a damaged page): trying again
                // would hold its slot for good. Quiet when a cancel moved it on meanwhile.
                guard update.from.contains(unreadable.state) else { return nil }
                logger.critical(
                    "cannot record job \(update.id)'s \(update.event.rawValue): \(unreadable); it is left \(unreadable.state.rawValue) (\(unreadable.remedy))",
                    metadata: ["job_id": "\(update.id)", "event": "\(update.event.rawValue)", "error": "\(unreadable)"]
                )
                return nil
            } catch  where error is EncodingError || error is DecodingError {
                // The change itself cannot be written (a value JSON cannot hold): trying again
                // would hold the job's slot for good. Left as it is, the job is requeued at the
                // next start, as after a crash.
                logger.critical(
                    "cannot record job \(update.id)'s \(update.event.rawValue): \(error); the job stays as it is until lulld restarts",
                    metadata: ["job_id": "\(update.id)", "event": "\(update.event.rawValue)", "error": "\(error)"]
                )
                return nil
            } catch {
                if failures == 0 {
                    logger.error(
                        "could not record job \(update.id)'s \(update.event.rawValue): \(error); trying again until the store can write",
                        metadata: ["job_id": "\(update.id)", "event": "\(update.event.rawValue)", "error": "\(error)"]
                    )
                }
                failures += 1
                // Only a stop gives up. The attempt's task is also cancelled by a suspend, a lost
                // condition or a command; giving up then would leave the job out of the queue
                // (or `running` in the store) until a restart. The pause is a task of its own,
                // which that cancellation does not cut short.
                if stopping.raised { return nil }
                let (sleeper, length) = (self.sleeper, pause)
                await Task { @Sendable in try? await sleeper.sleep(for: length) }.value
                if stopping.raised { return nil }
                pause = min(pause * 2, .seconds(5))
            }
        }
    }
}
