import LullCore
import LullTransfer

/// A class's `cpu_weight`, `memory_max`, `io_weight` or `tasks_max` that the run host cannot
/// enforce: where lulld starts commands itself, only a cgroup of the command's own with the
/// control's controller does; without, they are accepted and without effect. A job that asks
/// for one is refused instead (422), since its submitter is there to hear it; a class's is said
/// where the admin looks.
enum RunResourceCheck {
    /// `host`: where commands run (a reload keeps the running daemon's); `controllers`: those of
    /// the commands' cgroups (by default what start-up found, in `config.run.cgroups`).
    static func warnings(
        for config: DaemonConfig,
        host: RunHost? = nil,
        controllers: Set<String>? = nil
    )
        -> [ConfigWarning]
    {
        guard (host ?? config.run.host) != .systemd else { return [] }
        let enforced = controllers ?? Set(config.run.cgroups?.controllers ?? [])
        return config.run.classDefaults.sorted { $0.key < $1.key }.flatMap { className, defaults in
            defaults.resources.values.compactMap { field, _ in
                guard !enforced.contains(RunResources.controller(of: field)) else { return nil }
                return config.origins["classes.\(className).\(field)"].map { origin in
                    ConfigWarning(origin: origin, message: message(field, enforced: enforced))
                }
            }
        }
    }

    private static func message(_ field: String, enforced: Set<String>) -> String {
        guard !enforced.isEmpty else {
            return
                "\(field) does not apply: this lulld starts commands itself, where only nice applies; it takes effect with [run] host = \"systemd\" (commands as systemd units)"
        }
        return
            "\(field) does not apply: this lulld starts commands in cgroups without the \(RunResources.controller(of: field)) controller; it takes effect where lulld's cgroup delegates it, or with [run] host = \"systemd\""
    }
}
