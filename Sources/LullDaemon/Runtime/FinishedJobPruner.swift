import Foundation
import Logging
import LullCore
import NIOPosix

/// Forgets finished jobs once they ended longer ago than `[limits] keep_finished_days`: the job,
/// its events and a run job's log. Without it every job ever run stays in the store, and the
/// quotas, which count unfinished jobs only, would not stop one user from filling the disk.
///
/// A sweep deletes in batches, each its own short transaction, so submissions and state changes
/// are not held up behind one long one. Logs go before their rows: a crash in between leaves a
/// job that reads as having printed nothing and goes at the next sweep, never a log no job owns.
/// Jobs whose completion hook is still to run are kept until it has.
actor FinishedJobPruner {
    private let store: any FinishedJobStore
    private let removeLog: @Sendable (JobID) -> Void
    private let clock: any LullClock
    private let sleeper: any Sleeper
    private let logger: Logger
    private var keep: TimeInterval
    private var loop: Task<Void, Never>?
    let batchSize: Int

    /// - Parameter keep: how long a finished job is kept after it ended, in seconds.
    init(
        store: any FinishedJobStore,
        keep: TimeInterval,
        removeLog: @escaping @Sendable (JobID) -> Void,
        clock: any LullClock,
        sleeper: any Sleeper,
        logger: Logger,
        batchSize: Int = 500
    ) {
        self.store = store
        self.keep = keep
        self.removeLog = removeLog
        self.clock = clock
        self.sleeper = sleeper
        self.logger = logger
        self.batchSize = batchSize
    }

    /// How long the loop waits between sweeps: an hour, or a tenth of a shorter retention, so a
    /// job outlives its retention by at most that much.
    var interval: Duration { .seconds(min(3600, keep / 10)) }

    /// Sweeps now and then every `interval`, until `stop`.
    func start() {
        loop?.cancel()
        loop = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                await self.sweep()
                do { try await self.sleeper.sleep(for: await self.interval) } catch { return }
            }
        }
    }

    func stop() {
        loop?.cancel()
        loop = nil
    }

    /// A reload's new retention: a running loop sweeps again now, so a shorter one takes effect
    /// at once rather than an interval later.
    func update(keep: TimeInterval) {
        guard keep != self.keep else { return }
        self.keep = keep
        if loop != nil { start() }
    }

    /// Deletes every job that ended before now minus the retention; returns how many went.
    /// A store error ends the sweep early; the next one tries again.
    @discardableResult
    func sweep() async -> Int {
        let cutoff = clock.now().addingTimeInterval(-keep)
        var removed = 0
        do {
            while !Task.isCancelled {
                let batch = try await store.finishedJobs(endedBefore: cutoff, limit: batchSize)
                // Up to a batch of unlinks: on NIO's thread pool, not the event loop this runs on.
                let logs = batch.filter { $0.kind == .run }.map(\.id)
                if !logs.isEmpty {
                    try await NIOThreadPool.singleton.runIfActive { [removeLog] in
                        for id in logs { removeLog(id) }
                    }
                }
                let gone = try await store.removeFinished(batch.map(\.id), endedBefore: cutoff)
                removed += gone
                if batch.count < batchSize || gone == 0 { break }
            }
            let validators = try await store.forgetFetchValidators(storedBefore: cutoff)
            if removed > 0 || validators > 0 {
                logger.info(
                    "removed \(removed) jobs that ended before \(cutoff.formatted(.iso8601)) and \(validators) unused fetch validators ([limits] keep_finished_days)",
                    metadata: ["removed_jobs": "\(removed)", "removed_validators": "\(validators)"]
                )
            }
        } catch {
            logger.error(
                "could not remove old finished jobs (tried again in \(interval)): \(error)",
                metadata: ["error": "\(error)", "removed_jobs": "\(removed)"]
            )
        }
        return removed
    }
}
