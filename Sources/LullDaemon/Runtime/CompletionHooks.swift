import Foundation
import Logging
import LullCore

/// Starts the unit a job names in `on_complete_unit` once the job has ended — Linux's
/// counterpart of waking an app to hand it its finished background transfers. A template
/// (`name@.service`) is started as `name@JOBID.service`. The store remembers which hooks ran,
/// so a hook due when the daemon stopped or crashed runs at the next start (at least once).
/// A start that fails is tried again after each of `retryDelays` (the bus may be restarting),
/// then given up and recorded as settled, so a unit that cannot start is not tried for ever.
struct CompletionHooks: Sendable {
    let store: any JobStore
    let starter: any UnitStarting
    let clock: any LullClock
    let sleeper: any Sleeper
    let logger: Logger
    var retryDelays: [Duration] = [.seconds(1), .seconds(5), .seconds(30)]

    func run(for job: Job) async {
        guard let name = job.spec.onCompleteUnit, let unit = UnitName(name) else { return }
        let instance = unit.instance(for: job.id)
        let metadata = JobLogLine.metadata(job, ["unit": "\(instance)", "state": "\(job.state.rawValue)"])
        var delays = retryDelays[...]
        while true {
            do {
                let systemdJob = try await starter.start(unit: instance)
                logger.notice(
                    "completion hook started \(instance)",
                    metadata: metadata.merging(["systemd_job": "\(systemdJob)"]) { $1 }
                )
                break
            } catch {
                let next = delays.popFirst()
                logger.error(
                    "completion hook \(instance) could not be started: \(error); \(next.map { "trying again in \($0.components.seconds) s" } ?? "giving up")",
                    metadata: metadata.merging(["error_code": "hook_failed", "error": "\(error)"]) { $1 }
                )
                guard let next else { break }
                // A stop meanwhile leaves the hook unrecorded: the next start runs it.
                do { try await sleeper.sleep(for: next) } catch { return }
            }
        }
        do {
            try await store.completionHookRan(job.id, at: clock.now())
        } catch {
            logger.error(
                "could not record that the completion hook \(instance) ran (it runs again at the next start): \(error)",
                metadata: metadata.merging(["error": "\(error)"]) { $1 }
            )
        }
    }

    /// Jobs that ended while their hook could not run (a stop or crash in between). A job whose
    /// row no longer decodes cannot be described to its hook: it is settled without one.
    func pending() async -> [Job] {
        do {
            var jobs: [Job] = []
            for stored in try await store.pendingCompletionHooks() {
                switch stored {
                case .readable(let job): jobs.append(job)
                case .unreadable(let unreadable): await settle(unreadable)
                }
            }
            return jobs
        } catch {
            logger.error(
                "could not read the pending completion hooks; they run at a later start: \(error)",
                metadata: ["error": "\(error)"]
            )
            return []
        }
    }

    private func settle(_ unreadable: UnreadableJob) async {
        logger.error(
            "\(unreadable); its completion hook is not started",
            metadata: ["job_id": "\(unreadable.id)", "error_code": "hook_failed"]
        )
        try? await store.completionHookRan(unreadable.id, at: clock.now())
    }
}
