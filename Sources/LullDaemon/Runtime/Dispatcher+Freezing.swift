import Foundation
import LullCore

/// Pause by freezing: a kind whose attempts can be held where they are (`FreezableEngine`, a run
/// job's process group) is paused without ending its attempt, and resumed without starting a new
/// one. The attempt keeps its slot meanwhile: its processes keep their memory. Other commands,
/// and other kinds, take the usual path (`apply`).
extension Dispatcher {
    /// The command's result when freezing handles it; nil to take the usual path.
    func applyByFreezing(_ command: JobCommand, to job: Job) async throws -> Result<Job, JobCommandRefusal>? {
        switch (command, job.state) {
        case (.pause, .running) where frozen.contains(job.id):
            // Another pause froze it and is writing that down: this one is refused as for a
            // paused job. Taking the usual path instead, its write could land first (the store
            // is awaited off the actor) and end the command the other pause froze.
            return .failure(JobCommandRefusal(command: command, state: .paused))
        case (.pause, .running):
            guard running[job.id] != nil, !frozen.contains(job.id),
                let engine = engines[job.spec.kind] as? any FreezableEngine, engine.attemptsAreProcesses
            else { return nil }
            // Marked before anything is awaited: a second pause meanwhile must not freeze (and,
            // losing the race for the store, thaw) the group this one froze. A stop decided
            // meanwhile waits, as for a frozen job, and is carried out if the pause fails.
            frozen.insert(job.id)
            guard await engine.freeze(job.id) else {
                // Nothing is held (the manager refused): the usual pause ends the attempt.
                await letGo(job, engine, thawing: false)
                return nil
            }
            let update = JobUpdate(
                id: job.id,
                from: [.running],
                to: .paused,
                event: .paused,
                time: clock.now(),
                message: "frozen where it is (its processes stopped); resume lets it go on"
            )
            let outcome: JobUpdateOutcome
            do { outcome = try await store.apply(update) } catch {
                await letGo(job, engine, thawing: true)
                throw error
            }
            guard case .applied(let paused) = outcome else {
                await letGo(job, engine, thawing: true)
                return nil
            }
            perform([.statusChanged])
            return .success(paused)
        case (.resume, .paused) where frozen.contains(job.id):
            let update = JobUpdate(
                id: job.id,
                from: [.paused],
                to: .running,
                event: .resumed,
                time: clock.now(),
                message: "thawed: it goes on where it was"
            )
            guard case .applied(let resumed) = try await store.apply(update) else { return nil }
            guard running[job.id] != nil else {
                frozen.remove(job.id)
                return await requeue(resumed, because: .endedWhilePaused)
            }
            let thawed = await (engines[job.spec.kind] as? any FreezableEngine)?.thaw(job.id) ?? false
            // Held until the thaw returned: a stop decided meanwhile waits, and `thawed` below
            // decides it again.
            frozen.remove(job.id)
            if !thawed, running[job.id] != nil { return await endHeld(resumed) }
            resumeSampling()
            perform(machine.thawed(job.id, at: instant()))
            return .success(resumed)
        case (.cancel, .paused) where frozen.contains(job.id):
            // The usual cancel ends the attempt; its stop signals wake the group first.
            frozen.remove(job.id)
            return nil
        default:
            return nil
        }
    }

    /// A pause that did not happen lets the job go: the group is thawed if it was frozen, and a
    /// stop decided meanwhile is carried out. A group that stays frozen is ended instead.
    private func letGo(_ job: Job, _ engine: any FreezableEngine, thawing: Bool) async {
        frozen.remove(job.id)
        if thawing, !(await engine.thaw(job.id)), running[job.id] != nil {
            _ = await endHeld(job)
            return
        }
        perform(machine.stopHeldBack(of: job.id))
    }

    /// The manager would not thaw the command: its attempt is ended (the unit stopped) and the
    /// job queued to run again, rather than left `running` while nothing runs. (An attempt that
    /// had ended by itself records its own outcome first, and the requeue then finds nothing.)
    private func endHeld(_ job: Job) async -> Result<Job, JobCommandRefusal> {
        if let task = running[job.id] {
            task.cancel()
            await task.value
        }
        let result = await requeue(job, because: .notThawed)
        if case .success(let queued) = result, queued.state == .queued {
            logger.warning(
                "job \(job.id)'s command could not be thawed; its attempt was ended and the job runs again",
                metadata: ["job_id": "\(job.id)"]
            )
        }
        return result
    }

    /// A job the store says is `running` while nothing runs for it (its attempt ended while it
    /// was paused, or was ended because it could not be thawed) goes back to the queue, as a
    /// resumed stopped job does. The recorder waits for a store that cannot write: the job must
    /// not stay `running` with nothing running.
    private func requeue(_ job: Job, because why: AttemptInterruption) async -> Result<Job, JobCommandRefusal> {
        guard let queued = await recorder.requeued(job, because: why) else { return .success(job) }
        perform(
            machine.commandTookEffect(requeueing: timeline.place(QueuedJob(queued)), at: instant(), readings: readings)
        )
        return .success(queued)
    }
}
