import Logging
import LullCore

/// A key that parses but will not do what its author meant. Never fatal: `--check-config`
/// prints it and exits 0, the daemon logs it at start and reload and runs on.
public struct ConfigWarning: Sendable, Equatable, CustomStringConvertible {
    /// Where the key was set (file:line and the full key).
    public var origin: ConfigOrigin
    /// Why it has no effect and what to change instead.
    public var message: String

    public init(origin: ConfigOrigin, message: String) {
        self.origin = origin
        self.message = message
    }

    /// `FILE:LINE: daemon.socket_mode: warning: …`, the shape of the config errors.
    public var description: String {
        "\(origin.location): \(origin.key): warning: \(message)"
    }

    /// What a daemon warns about as it starts: keys its flags or socket activation override,
    /// hook units the polkit rule will refuse, and class run controls its host cannot enforce.
    static func atStart(_ settings: DaemonSettings, socketActivated: Bool) -> [ConfigWarning] {
        IneffectiveSettings.warnings(
            for: settings.config,
            in: .running(settings.options, socketActivated: socketActivated)
        )
            + HookPolkitFence.warnings(for: settings.config, manager: HookManager(settings.config.hooks.manager))
            + CongestionControlCheck.warnings(for: settings.config)
            + RunResourceCheck.warnings(for: settings.config)
    }

    /// One notice per warning, so that each shows in the journal with its file and key.
    public static func log(_ warnings: [ConfigWarning], to logger: Logger) {
        for warning in warnings {
            logger.notice(
                "\(warning)",
                metadata: [
                    "config": "\(warning.origin.file)", "key": "\(warning.origin.key)",
                    "line": "\(warning.origin.line.map(String.init) ?? "")",
                ]
            )
        }
    }
}
