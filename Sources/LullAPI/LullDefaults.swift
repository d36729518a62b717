import LullCore

/// Where a user instance keeps its state and socket when nothing says otherwise.
/// Shared by the daemon and its clients so both find the same socket.
public enum LullDefaults {
    public static let version = LullVersion.current

    /// `$XDG_STATE_HOME/lull`, else `~/.local/state/lull`.
    public static func stateDirectory(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/lull"
        }
        return (environment["HOME"] ?? "/root") + "/.local/state/lull"
    }

    /// `$XDG_RUNTIME_DIR/lull/lull.sock`, else `lull.sock` in the state directory (the default
    /// one unless a daemon was told to use another).
    public static func socketPath(environment: [String: String], stateDirectory: String? = nil) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return runtime + "/lull/lull.sock"
        }
        return (stateDirectory ?? self.stateDirectory(environment: environment)) + "/lull.sock"
    }

    /// The system instance's socket, made by `lulld.socket`.
    public static let systemSocketPath = "/run/lull/lull.sock"

    /// The socket a client should use: `LULL_SOCKET` first, then the user default.
    /// (`lullctl` also looks for the system instance's: `SocketDiscovery`.)
    public static func clientSocketPath(environment: [String: String]) -> String {
        environment["LULL_SOCKET"] ?? socketPath(environment: environment)
    }
}
