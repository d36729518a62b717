import Logging
import LullTransfer

/// Start-up's word on the cgroups of commands lulld starts itself: the subtree it uses, or why
/// commands run in process groups instead (measured with rusage and /proc).
enum RunCgroupChoice {
    static func establish(_ setting: DelegatedCgroups.Setting, logger: Logger) -> DelegatedCgroups? {
        switch DelegatedCgroups.establish(setting) {
        case .using(let cgroups):
            let controllers = cgroups.controllers.isEmpty ? "none" : cgroups.controllers.joined(separator: " ")
            logger.info(
                "run jobs: each command in a cgroup of its own under \(cgroups.mount)\(cgroups.jobs) (controllers: \(controllers))"
            )
            return cgroups
        case .unavailable(let reason):
            logger.info("run jobs: commands in process groups, without cgroups of their own: \(reason)")
            return nil
        }
    }
}
