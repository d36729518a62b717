import LullSensors

#if canImport(Glibc)
import Glibc
#endif

/// The shipped polkit rule (units/lull-hooks.polkit.rules) lets the system instance's `lull`
/// user start only units named `lull-hook-*`. A unit in `[hooks] allowed_units` outside that
/// fence is accepted by the config and refused by systemd at run time
/// (`InteractiveAuthorizationRequired`), so it is warned about where the admin looks first.
public enum HookPolkitFence {
    /// The prefix the rule's regular expression requires.
    public static let prefix = "lull-hook-"

    /// Whether the rule allows starting `unit` (a template `name@.service` is started as
    /// `name@ID.service`, which the rule sees).
    public static func allows(_ unit: String) -> Bool {
        guard unit.hasPrefix(prefix) else { return false }
        let rest = unit.dropFirst(prefix.count)
        return [".service", ".target"].contains { rest.hasSuffix($0) && rest.count > $0.count }
    }

    /// One warning per listed unit the rule will refuse.
    public static func warnings(for config: DaemonConfig) -> [ConfigWarning] {
        guard let origin = config.origins["hooks.allowed_units"] else { return [] }
        return config.hooks.allowedUnits.filter { !allows($0) }.map { unit in
            let renamed = prefix + unit
            return ConfigWarning(
                origin: origin,
                message:
                    "\"\(unit)\" will be refused when a job's hook starts it: the system instance runs as user lull, and the installed polkit rule (50-lull-hooks.rules) lets lull start only units named \(prefix)*; rename the unit (e.g. \(renamed)) or extend the rule (a rules file of your own in /etc/polkit-1/rules.d)"
            )
        }
    }

    /// The warnings of a running daemon: none when its hooks do not go through the rule.
    static func warnings(for config: DaemonConfig, manager: HookManager, euid: UInt32 = geteuid()) -> [ConfigWarning] {
        applies(manager: manager, euid: euid) ? warnings(for: config) : []
    }

    /// Whether the fence applies to a daemon with these hook settings: it starts units in the
    /// system manager over the system bus as a user other than root (root needs no polkit rule).
    static func applies(manager: HookManager, euid: UInt32) -> Bool {
        guard euid != 0, case .system = manager.kind, case .system = manager.endpoint else { return false }
        return true
    }
}
