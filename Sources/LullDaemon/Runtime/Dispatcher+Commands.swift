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
}
