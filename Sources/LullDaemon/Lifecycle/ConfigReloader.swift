import Foundation
import Logging
import LullAPI
import LullCore
import LullTransfer

/// Reads the config file again and swaps what can change without a restart: the policy, the
/// submission rules, the connection caps and the retention of finished jobs. Settings that need a restart (socket, state
/// directory, sensors, transfer timeouts) keep their old values. A file that does not parse is
/// refused and the old policy stays. SIGHUP and `POST /v1/reload` both come here, one at a time.
actor ConfigReloader {
    enum Outcome: Sendable {
        case reloaded(ReloadView)
        /// No config file where the daemon looks; the embedded defaults stay.
        case noFile(ReloadView)
        case refused(file: String, ConfigError)
    }

    /// The connection caps and what they are derived from, for a reload to set them again.
    struct Connections: Sendable {
        var limit: ConnectionLimit
        var descriptorLimit: Int
    }

    private let settings: DaemonSettings
    private let manager: HookManager
    private let dispatcher: Dispatcher
    private let validators: ValidatorHolder
    private let connections: Connections
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let bandwidth: BandwidthLimiter?
    private let pruner: FinishedJobPruner?

    init(
        settings: DaemonSettings,
        manager: HookManager,
        dispatcher: Dispatcher,
        validators: ValidatorHolder,
        connections: Connections,
        notifier: SystemdNotifier,
        logger: Logger,
        bandwidth: BandwidthLimiter? = nil,
        pruner: FinishedJobPruner? = nil
    ) {
        self.bandwidth = bandwidth
        self.pruner = pruner
        self.settings = settings
        self.manager = manager
        self.dispatcher = dispatcher
        self.validators = validators
        self.connections = connections
        self.notifier = notifier
        self.logger = logger
    }

    private let turns = OneAtATime<Outcome>()

    /// A reload asked for while one runs starts after it, and reads the file then.
    nonisolated func reload() async -> Outcome {
        await turns.run { await self.reloadNow() }
    }

    private func reloadNow() async -> Outcome {
        notifier.reloading()
        let outcome = await swap()
        // The queue summary, as at start-up: a fixed "reloaded" text would stay in
        // `systemctl status` until the summary changed, since equal lines are not sent again.
        notifier.ready(status: await dispatcher.statusLine())
        return outcome
    }

    private func swap() async -> Outcome {
        guard let file = settings.configFileForReload(exists: { FileManager.default.fileExists(atPath: $0) }) else {
            let looked = settings.options.map(ConfigSources.searched) ?? []
            let message =
                "reload requested, but there is no config file; the embedded defaults stay"
                + (looked.isEmpty
                    ? " (see lulld --help for where it looks)" : " (looked for \(looked.joined(separator: ", ")))")
            logger.notice("\(message)")
            return .noFile(
                ReloadView(
                    config: nil,
                    files: [],
                    classes: await dispatcher.currentPolicy.classes.count,
                    message: message
                )
            )
        }
        let files = ConfigSources.files(of: file)
        do {
            let config = try ConfigLoader.loadWithDropIns(file: file)
            await dispatcher.update(policy: config.policy)
            bandwidth?.update(policy: config.policy)
            await pruner?.update(keep: config.keepFinished)
            validators.replace(
                Self.validator(
                    for: config,
                    manager: manager,
                    privateDirectories: validators.current.privateDirectories,
                    runsCommandsAsUnits: validators.current.runsCommandsAsUnits,
                    cgroupControllers: validators.current.cgroupControllers,
                    commandsOnlyOf: validators.current.commandsOnlyOf
                )
            )
            connections.limit.update(Self.connectionCaps(config, descriptorLimit: connections.descriptorLimit))
            logger.notice(
                "policy reloaded from \(files.joined(separator: ", ")): \(config.policy.classes.count) classes",
                metadata: [
                    "config": "\(file)", "files": "\(files.joined(separator: " "))",
                    "classes": "\(config.policy.classes.count)",
                ]
            )
            ConfigWarning.log(HookPolkitFence.warnings(for: config, manager: manager), to: logger)
            let host: RunHost = validators.current.runsCommandsAsUnits ? .systemd : .process
            ConfigWarning.log(
                RunResourceCheck.warnings(for: config, host: host, controllers: validators.current.cgroupControllers),
                to: logger
            )
            return .reloaded(
                ReloadView(
                    config: file,
                    files: files,
                    classes: config.policy.classes.count,
                    message: "reloaded \(files.joined(separator: ", ")): \(config.policy.classes.count) classes"
                )
            )
        } catch {
            // Each problem with its file:line in the message: the journal's fields do not show in
            // `journalctl -u lulld` or `systemctl status`.
            logger.error(
                "reload refused: \(error.problems.map(\.description).joined(separator: "; ")); keeping the old policy",
                metadata: ["config": "\(file)", "error": "\(error)"]
            )
            return .refused(file: file, error)
        }
    }

    /// `runsCommandsAsUnits`: nil at start-up, from `[run] host`; a reload keeps the running
    /// daemon's, since its runner keeps running commands where it did, as it keeps
    /// `commandsOnlyOf` (`ProcessHostRights`, read at start-up).
    static func validator(
        for config: DaemonConfig,
        manager: HookManager,
        privateDirectories: PrivateDirectories,
        runsCommandsAsUnits: Bool? = nil,
        cgroupControllers: Set<String>? = nil,
        commandsOnlyOf: OwnerID? = nil
    ) -> JobSpecValidator {
        JobSpecValidator(
            limits: config.limits,
            knownClasses: Set(config.policy.classes.map(\.name)),
            allowedUnits: manager.allowedUnits(config.hooks.allowedUnits),
            privateDirectories: privateDirectories,
            runsCommandsAsUnits: runsCommandsAsUnits ?? (config.run.host == .systemd),
            cgroupControllers: cgroupControllers ?? Set(config.run.cgroups?.controllers ?? []),
            commandsOnlyOf: commandsOnlyOf
        )
    }

    static func connectionCaps(_ config: DaemonConfig, descriptorLimit: Int) -> ConnectionLimit.Caps {
        ConnectionLimit.caps(
            perUid: config.maxConnectionsPerUid,
            nonRoot: config.maxConnections,
            descriptorLimit: descriptorLimit
        )
    }
}
