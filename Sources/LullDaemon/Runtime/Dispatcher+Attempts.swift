import Foundation
import LullCore

/// Attempts: each runs in a task of its own that holds the job's slot until its outcome is
/// recorded, even while the store cannot write.
extension Dispatcher {
    func execute(_ id: JobID) async {
        defer {
            progressTicks += 1
            running[id] = nil
            // An attempt that ends while frozen (killed, or the daemon stops) leaves its job paused.
            frozen.remove(id)
            holdable.remove(id)
            reportedProgress[id] = nil
            usageSamples.ended(id)
            // Bytes moved since the last progress report count too when the attempt ends in a
            // retry, a stop or a command (an outcome charged them already).
            chargeMeteredBytes(of: id)
            accounts.attemptEnded(id)
            perform(machine.attemptFinished(id, at: instant(), readings: readings))
        }
        guard let job = await recorder.started(id) else { return }
        let outcome: AttemptOutcome
        if let engine = engines[job.spec.kind] {
            if (engine as? any FreezableEngine)?.attemptsAreProcesses == true { holdable.insert(id) }
            if usageKinds.contains(job.spec.kind) { startSampling(id) }
            let meter = accounts.begin(job, network: machine.world.network, metrics: metrics)
            let runner = AttemptRunner(
                engine: engine,
                store: store,
                clock: clock,
                sleeper: sleeper,
                progressInterval: progressInterval,
                metrics: metrics,
                logger: logger,
                intervals: timeline
            )
            outcome = await runner.run(job, meter: meter) { [weak self] progress in
                await self?.progressed(progress, of: id)
            }
            // A stopped command has no result; its last sample says what it used at least.
            if outcome == .interrupted, let usage = usageSamples.usage(of: id) {
                metrics.runAttemptEnded(jobClass: job.spec.jobClass, usage: usage)
            }
        } else {
            outcome = .failed(
                JobFailure(
                    code: "unsupported_kind",
                    message: "this daemon cannot run \(job.spec.kind.rawValue) jobs",
                    retryable: false
                )
            )
        }
        await conclude(job, outcome)
    }

    /// Records what the state machine concluded from the attempt's end, then lets memory follow.
    private func conclude(_ job: Job, _ outcome: AttemptOutcome) async {
        switch machine.attemptEnded(job, outcome, wall: clock.now(), unitRandom: random) {
        case .succeed(var result, let next):
            result.accounting = closeAccounting(of: job)
            recorded(await recorder.succeeded(job, result: result, next: next), of: job)
        case .fail(let failure, let next):
            let accounting = closeAccounting(of: job)
            recorded(await recorder.failed(job, failure: failure, accounting: accounting, next: next), of: job)
        case .retry(let failure, let delay):
            guard let updated = await recorder.retrying(job, after: failure, in: delay) else { return }
            machine.retryRecorded(timeline.place(QueuedJob(updated)), now: timeline.now())
        case .requeue(.conditionsLost(let reason)):
            chargeMeteredBytes(of: job.id)
            guard let stopped = await recorder.stopped(job, because: reason) else { return }
            var queued = timeline.place(QueuedJob(stopped))
            queued.holdDown = JobScheduler.holdDown(afterStops: stopped.stops)
            machine.stopRecorded(queued, now: timeline.now())
        case .requeue(let interruption):
            guard let requeued = await recorder.requeued(job, because: interruption) else { return }
            machine.interruptionRecorded(timeline.place(QueuedJob(requeued)), now: timeline.now())
        case .settledByCommand:
            return
        }
    }

    /// A final outcome was written: the next occurrence joins the queue, and the ended job no
    /// longer counts against its owner's quota.
    private func recorded(_ stored: OutcomeRecorder.Stored, of job: Job) {
        if let successor = stored.successor {
            machine.successorCreated(timeline.place(QueuedJob(successor)), now: timeline.now())
        }
        if stored.ended != nil { machine.release(1, for: job.owner) }
    }

    /// A progress report on its way to the store.
    private func progressed(_ progress: TransferProgress, of id: JobID) {
        // A report that arrives after the attempt ended must not outlive it.
        if running[id] != nil { reportedProgress[id] = (progress, timeline.now()) }
        chargeMeteredBytes(of: id)
        guard running[id] != nil else { return }
        perform(machine.runningProgressed(id, secondsLeft: progress.secondsRemaining, at: instant()))
    }

    /// Ends the job's accounting, its last metered bytes charged first.
    private func closeAccounting(of job: Job) -> JobAccounting {
        chargeMeteredBytes(of: job.id)
        return accounts.close(job)
    }

    /// Metered bytes count against the class's and owner's daily budgets as they move.
    private func chargeMeteredBytes(of id: JobID) {
        guard let (bytes, owner, jobClass) = accounts.takeMeteredBytes(of: id) else { return }
        machine.meteredBytesMoved(bytes, owner: owner, className: jobClass, now: timeline.now())
    }
}
