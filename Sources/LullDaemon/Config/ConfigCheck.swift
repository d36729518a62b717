import Foundation
import LullAPI

#if canImport(Glibc)
import Glibc
#endif

/// `lulld --check-config`: checks the file the installed service reads, says which instance that
/// is and which files it read. As root that is the system instance's `/etc/lull/lull.toml`, not
/// root's own `~/.config/lull/lull.toml`, which no service reads.
public struct ConfigCheck: Sendable {
    public enum Instance: String, Sendable {
        case system, user
    }

    /// The file to check: `--config`, else the instance's file.
    public var file: String
    /// Which instance, nil with `--config` (a file named on the command line).
    public var instance: Instance?

    /// - Parameters:
    ///   - instance: `--system` or `--user`; nil: the system instance for root or inside a unit
    ///     with `ConfigurationDirectory=`, else the user's.
    public init(config: String?, instance: Instance?, environment: [String: String], euid: uid_t = geteuid()) {
        if let config {
            file = config
            self.instance = nil
            return
        }
        let chosen = instance ?? (euid == 0 || environment["CONFIGURATION_DIRECTORY"] != nil ? .system : .user)
        self.instance = chosen
        switch chosen {
        case .system:
            // The unit's ConfigurationDirectory= (systemd sets this), which is /etc/lull.
            let directory = environment["CONFIGURATION_DIRECTORY"]?.split(separator: ":").first.map(String.init)
            file = (directory.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/etc/lull") + "/lull.toml"
        case .user:
            let base =
                environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? ((environment["HOME"] ?? "/root") + "/.config")
            file = base + "/lull/lull.toml"
        }
    }

    /// "the system instance (lulld.service)".
    public var subject: String {
        switch instance {
        case .system: "the system instance (lulld.service)"
        case .user: "the user instance (systemctl --user's lulld.service)"
        case nil: "the file given with --config"
        }
    }

    public struct Report: Sendable {
        /// Lines for stdout on success, for stderr on failure.
        public var text: String
        public var exitStatus: LulldExitStatus
        /// Keys that parse but have no effect where the instance runs; for stderr, not fatal.
        public var warnings: [ConfigWarning] = []
    }

    /// Congestion controls the kernel lacks, keys the checked instance's shipped units make
    /// useless, hook units its polkit rule refuses, and class run controls the run host cannot
    /// enforce. With `--config` the instance is unknown:
    /// only hooks sent to the system manager (`manager = "system"`) are checked against the rule.
    public func warnings(for config: DaemonConfig) -> [ConfigWarning] {
        CongestionControlCheck.warnings(for: config) + instanceWarnings(for: config)
            + RunResourceCheck.warnings(for: config)
    }

    private func instanceWarnings(for config: DaemonConfig) -> [ConfigWarning] {
        switch instance {
        case .system:
            let viaSystem = config.hooks.manager == .auto || config.hooks.manager == .system
            return IneffectiveSettings.warnings(for: config, in: .systemUnits)
                + (viaSystem ? HookPolkitFence.warnings(for: config) : [])
        case .user:
            return IneffectiveSettings.warnings(for: config, in: .userUnits)
        case nil:
            return config.hooks.manager == .system ? HookPolkitFence.warnings(for: config) : []
        }
    }

    public func run(exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> Report {
        let dropIns = ConfigLoader.dropIns(of: file)
        guard exists(file) else {
            let ignored =
                dropIns.isEmpty
                ? ""
                : "\n(drop-ins apply only beside a lull.toml; these are not read: \(dropIns.joined(separator: ", ")))"
            if instance == nil {
                return Report(text: "lulld: \(file) does not exist\n", exitStatus: .invalidConfiguration)
            }
            return Report(text: "\(subject): no \(file); the embedded defaults apply\(ignored)\n", exitStatus: .success)
        }
        let files = [file] + dropIns
        // With --config, just the files: the file was named, so there is no instance to name.
        let header = instance == nil ? "" : "checked \(subject):\n"
        do {
            let config = try ConfigLoader.loadWithDropIns(file: file)
            return Report(
                text: header + files.map { "\($0): ok\n" }.joined(),
                exitStatus: .success,
                warnings: warnings(for: config)
            )
        } catch {
            let which = instance == nil ? "" : " of \(subject), read from \(files.joined(separator: ", "))"
            return Report(text: "lulld: invalid configuration\(which):\n\(error)\n", exitStatus: .invalidConfiguration)
        }
    }
}
