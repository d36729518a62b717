import Foundation
import Logging
import LullCore

/// Starts the unit a job names in `on_complete_unit` once the job has ended — Linux's
/// counterpart of waking an app to hand it its finished background transfers. A template
/// (`name@.service`) is started as `name@JOBID.service`. The store remembers which hooks ran,
/// so a hook due when the daemon stopped or crashed runs at the next start (at least once).
struct CompletionHooks: Sendable {
    let store: any JobStore
    let starter: any UnitStarting
    let clock: any LullClock
    let logger: Logger

    func run(for job: Job) async {
        guard let name = job.spec.onCompleteUnit, let unit = UnitName(name) else { return }
        let instance = unit.instance(for: job.id)
        let metadata = Dispatcher.metadata(job, ["unit": "\(instance)", "state": "\(job.state.rawValue)"])
        do {
            let systemdJob = try await starter.start(unit: instance)
            logger.notice("completion hook started \(instance)", metadata: metadata.merging(["systemd_job": "\(systemdJob)"]) { $1 })
        } catch {
            logger.error(
                "completion hook \(instance) could not be started",
                metadata: metadata.merging(["error_code": "hook_failed", "error": "\(error)"]) { $1 })
        }
        do {
            try await store.completionHookRan(job.id, at: clock.now())
        } catch {
            logger.error("could not record that the completion hook ran", metadata: metadata.merging(["error": "\(error)"]) { $1 })
        }
    }

    /// Jobs that ended while their hook could not run (a stop or crash in between).
    func pending() async -> [Job] {
        do {
            return try await store.pendingCompletionHooks()
        } catch {
            logger.error("could not read pending completion hooks", metadata: ["error": "\(error)"])
            return []
        }
    }
}
