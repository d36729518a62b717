import LullAPI

/// What the command line says; the config file and the instance defaults fill in the rest.
public struct DaemonOptions: Sendable {
    public var configPath: String?
    public var stateDirectory: String?
    public var socketPath: String?
    public var environment: [String: String]

    public init(configPath: String?, stateDirectory: String?, socketPath: String?, environment: [String: String]) {
        self.configPath = configPath
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        self.environment = environment
    }

    /// The config file to read: `--config`, else `lull.toml` in the unit's
    /// `ConfigurationDirectory=` (`$CONFIGURATION_DIRECTORY`, /etc/lull for the system unit) if
    /// present, else the user's `$XDG_CONFIG_HOME/lull/lull.toml` if present.
    public func configFile(exists: (String) -> Bool) -> String? {
        if let configPath { return configPath }
        if let directory = environment["CONFIGURATION_DIRECTORY"]?.split(separator: ":").first, directory.hasPrefix("/")
        {
            let candidate = String(directory) + "/lull.toml"
            if exists(candidate) { return candidate }
        }
        let base = environment["XDG_CONFIG_HOME"] ?? ((environment["HOME"] ?? "/root") + "/.config")
        let candidate = base + "/lull/lull.toml"
        return exists(candidate) ? candidate : nil
    }

    /// Flags win over the file; the file wins over the defaults.
    /// Without a runtime directory the socket sits in the state directory actually used.
    /// `[run] host = "auto"` is resolved here, where the daemon knows what started it.
    public func settings(with config: DaemonConfig, from configFile: String? = nil) -> DaemonSettings {
        var config = config
        config.run.host = RunHostChoice.resolve(config.run.configuredHost)
        let state = stateDirectory ?? config.stateDirectory ?? LullDefaults.stateDirectory(environment: environment)
        let defaultSocket = LullDefaults.socketPath(environment: environment, stateDirectory: state)
        return DaemonSettings(
            stateDirectory: state,
            socketPath: socketPath ?? config.socketPath ?? defaultSocket,
            config: config,
            configFile: configFile,
            options: self
        )
    }
}

/// The settings a daemon actually runs with.
public struct DaemonSettings: Sendable {
    public var stateDirectory: String
    public var socketPath: String
    public var config: DaemonConfig
    /// The file the config came from, read again on SIGHUP; nil means embedded defaults.
    public var configFile: String?
    /// What the command line said, so that a reload on embedded defaults can look for a config
    /// file again (one created since the start).
    public var options: DaemonOptions?

    /// The file a reload reads: the one read at start, else one that has appeared since where
    /// the start looked.
    public func configFileForReload(exists: (String) -> Bool) -> String? {
        configFile ?? options?.configFile(exists: exists)
    }

    public var storePath: String { stateDirectory + "/lull.sqlite" }
}
