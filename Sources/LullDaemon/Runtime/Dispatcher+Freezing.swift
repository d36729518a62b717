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
            // losing the race for the store, thaw) the group this one froze.
            frozen.insert(job.id)
            guard await engine.freeze(job.id) else {
                // Nothing is held (the manager refused): the usual pause ends the attempt.
                frozen.remove(job.id)
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
                frozen.remove(job.id)
                _ = await engine.thaw(job.id)
                throw error
            }
            guard case .applied(let paused) = outcome else {
                frozen.remove(job.id)
                _ = await engine.thaw(job.id)
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
            frozen.remove(job.id)
            guard running[job.id] != nil else { return try await requeueEndedWhileFrozen(resumed) }
            _ = await (engines[job.spec.kind] as? any FreezableEngine)?.thaw(job.id)
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

    /// The attempt ended while the resume was being written (a total timeout or a kill while
    /// frozen): its outcome found the job paused and was refused, and the resume left it
    /// `running` with nothing running. It goes back to the queue, as a resumed stopped job does.
    private func requeueEndedWhileFrozen(_ resumed: Job) async throws -> Result<Job, JobCommandRefusal> {
        let update = JobUpdate(
            id: resumed.id,
            from: [.running],
            to: .queued,
            event: .requeued,
            time: clock.now(),
            message: "its attempt had ended while it was paused; it runs again",
            interruptsAttempt: true
        )
        guard case .applied(let queued) = try await store.apply(update) else { return .success(resumed) }
        perform(
            machine.commandTookEffect(requeueing: timeline.place(QueuedJob(queued)), at: instant(), readings: readings)
        )
        return .success(queued)
    }
}
