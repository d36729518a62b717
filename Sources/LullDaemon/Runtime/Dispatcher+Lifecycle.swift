import Foundation
import LullCore

/// The dispatcher's start, stop and the machine's sleep.
extension Dispatcher {
    /// Loads what a previous run left behind: interrupted jobs go back to the queue.
    /// - Parameter pageSize: queued jobs read from the store at a time.
    func restore(pageSize: Int = 50_000) async throws {
        machine.restoreBegan()
        defer { machine.restoreEnded() }
        let requeued = try await store.requeueInterrupted(at: clock.now())
        progressTicks += 1
        if !requeued.isEmpty {
            logger.notice(
                "requeued \(requeued.count) jobs interrupted by the previous stop",
                metadata: ["count": "\(requeued.count)"]
            )
        }
        // Read before anything starts, so a job that ends from now on is not in this list.
        let pendingHooks = await hooks?.pending() ?? []
        var unfinished = try await store.countsByOwner(in: [.paused, .running])
        // Page by page, the next page read (on a store reader thread) while this one goes into
        // the scheduler (on this actor): the two take about as long.
        let store = self.store
        machine.reserveCapacity(try await store.count(in: .queued))
        var page = try await store.queuedJobs(after: nil, limit: pageSize)
        while let last = page.last {
            // Detached, so it does not wait for this actor; and the loop is yielded now and then,
            // because NIO runs a task started from one of its threads on that same thread: the
            // read only gets going (on a store reader thread) once this loop lets it start.
            let next =
                page.count < pageSize
                ? nil : Task.detached { try await store.queuedJobs(after: last.id, limit: pageSize) }
            let now = timeline.now()
            for (index, job) in timeline.place(page).enumerated() {
                if index % 10_000 == 0 {
                    progressTicks += 1
                    await Task.yield()
                }
                machine.restoredJob(job, now: now)
                unfinished[job.owner, default: 0] += 1
            }
            page = try await next?.value ?? []
        }
        perform(machine.restored(unfinished: unfinished, at: instant(), readings: readings))
        if let hooks, !pendingHooks.isEmpty {
            Task { for job in pendingHooks { await hooks.run(for: job) } }
        }
    }

    /// Stops starting jobs and interrupts running ones so they go back to the queue.
    func drain() async {
        machine.stop()
        recorder.stopping.raise()
        heartbeat?.cancel()
        await interruptRunning()
    }

    /// The machine is about to sleep: checkpoint running transfers the way a stop does (back to
    /// the queue with their resume data) and start nothing until `resumeAfterSleep()`.
    /// Commands sleep through the suspend as every process does: the kernel holds them, and their
    /// timeouts run on the monotonic clock, which stops meanwhile. Ending them would start them
    /// over on wake; whether their conditions still hold is decided then.
    func checkpointForSleep() async {
        guard machine.sleep() else { return }
        let spared = holdable.union(frozen)
        await interruptRunning(sparing: spared)
        statusObserver?()
        let commands = running.keys.filter(spared.contains).count
        logger.notice(
            "transfers checkpointed for sleep; \(machine.queuedCount) jobs queued, \(commands) commands sleep through it",
            metadata: ["queued": "\(machine.queuedCount)", "commands": "\(commands)"]
        )
    }

    /// The machine woke up: the world and the clock may have changed, so decide again.
    func resumeAfterSleep() {
        let queued = machine.queuedCount
        let actions = machine.woke(at: instant(), readings: readings)
        guard !actions.isEmpty else { return }
        logger.notice("resumed after sleep; \(queued) jobs queued", metadata: ["queued": "\(queued)"])
        perform(actions)
    }

    private func interruptRunning(sparing spared: Set<JobID> = []) async {
        perform([.disarmTimer])
        let tasks = running.filter { !spared.contains($0.key) }.map(\.value)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
