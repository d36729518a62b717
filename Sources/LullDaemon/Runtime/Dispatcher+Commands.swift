import Foundation
import LullCore

extension Dispatcher {
    /// Applies a person's command. The store decides; memory and running tasks follow.
    func apply(_ command: JobCommand, to job: Job) async throws -> Result<Job, JobCommandRefusal> {
        var current = job
        for _ in 0..<3 {
            // Asked again after a conflict: a queued job that started meanwhile is frozen, not ended.
            if let frozen = try await applyByFreezing(command, to: current) { return frozen }
            let target: JobState
            switch command.target(from: current.state) {
            case .success(let state): target = state
            case .failure(let refusal): return .failure(refusal)
            }
            let update = JobUpdate(
                id: current.id,
                from: [current.state],
                to: target,
                event: command.eventType,
                time: clock.now(),
                // A pause and a resume keep the time a server asked the retry to wait for.
                retryAt: target == .cancelled ? nil : current.retryAt
            )
            switch try await store.apply(update) {
            case .applied(let updated):
                machine.commandRecorded(updated)
                if let task = running[updated.id] {
                    // Wait for the attempt to wind down, whatever the command: a resume that
                    // comes while a paused attempt still runs would otherwise start a second
                    // copy beside it, and the first one's end would then clear the second's slot.
                    task.cancel()
                    await task.value
                }
                if updated.state == .cancelled {
                    accounts.forget(updated.id)
                    await recorder.cancelled(updated)
                }
                let requeued = updated.state == .queued ? timeline.place(QueuedJob(updated)) : nil
                perform(machine.commandTookEffect(requeueing: requeued, at: instant(), readings: readings))
                return .success(updated)
            case .conflict(let latest):
                current = latest
            case .notFound:
                return .failure(JobCommandRefusal(command: command, state: current.state))
            }
        }
        return .failure(JobCommandRefusal(command: command, state: current.state))
    }

    /// Cancels a job whose row no longer decodes, from its plain columns: it can never run, and
    /// without this only `sqlite3` took it out of the queue.
    func cancel(_ unreadable: UnreadableJob) async throws -> Result<UnreadableJob, JobCommandRefusal> {
        var current = unreadable
        for _ in 0..<3 {
            guard case .success(let target) = JobCommand.cancel.target(from: current.state) else { break }
            let update = JobUpdate(
                id: current.id,
                from: [current.state],
                to: target,
                event: .cancelled,
                time: clock.now()
            )
            var updated: UnreadableJob
            switch try await store.applyToUnreadable(update) {
            case .applied(let applied): updated = applied
            case .conflict(let latest):
                current = latest
                continue
            case .notFound: return .failure(JobCommandRefusal(command: .cancel, state: current.state))
            }
            updated.problem = unreadable.problem
            machine.commandRecorded(updated.id, owner: updated.owner, state: updated.state)
            if let task = running[updated.id] {
                task.cancel()
                await task.value
            }
            accounts.forget(updated.id)
            metrics.jobFinished(kind: updated.kind, outcome: "cancelled", reason: nil)
            logger.notice(
                "job \(updated.id) cancelled; its stored row cannot be read (\(updated.problem)), so its partial files are left and its completion hook is not started",
                metadata: ["job_id": "\(updated.id)"]
            )
            perform(machine.commandTookEffect(requeueing: nil, at: instant(), readings: readings))
            return .success(updated)
        }
        return .failure(JobCommandRefusal(command: .cancel, state: current.state))
    }
}
