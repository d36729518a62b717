import LullCore
import LullTransfer

/// A class's `cpu_weight`, `memory_max`, `io_weight` or `tasks_max` where lulld starts commands
/// itself (`[run] host` resolved to `process`): only a systemd unit enforces them, so they are
/// accepted and without effect there. A job that asks for one is refused instead (422), since
/// its submitter is there to hear it; a class's is said where the admin looks.
enum RunResourceCheck {
    /// `host`: where commands run (a reload keeps the running daemon's).
    static func warnings(for config: DaemonConfig, host: RunHost? = nil) -> [ConfigWarning] {
        guard (host ?? config.run.host) != .systemd else { return [] }
        return config.run.classDefaults.sorted { $0.key < $1.key }.flatMap { className, defaults in
            defaults.resources.values.compactMap { field, _ in
                config.origins["classes.\(className).\(field)"].map { origin in
                    ConfigWarning(
                        origin: origin,
                        message:
                            "\(field) does not apply: this lulld starts commands itself, where only nice applies; it takes effect with [run] host = \"systemd\" (commands as systemd units)"
                    )
                }
            }
        }
    }
}
