/// Which daemon a client talks to: `--socket`, else `LULL_SOCKET`, else the user instance's
/// socket when it exists, else the system instance's (`/run/lull/lull.sock`). A user in
/// `lull-clients` with no daemon of their own thus reaches the system one without settings.
public struct SocketDiscovery: Sendable {
    /// Which instance a client asked for (`lullctl --system`, `--user-instance`); nil: either.
    public enum Instance: String, Sendable {
        case user, system
    }

    /// Where the chosen path came from.
    public enum Source: Sendable, Equatable {
        case flag, environment, user, system
    }

    public struct Choice: Sendable, Equatable {
        public var path: String
        public var source: Source
        /// The sockets looked for, in order, when none was named.
        public var tried: [String]
        /// False when none of `tried` existed (`path` is then the first of them).
        public var found: Bool

        public init(path: String, source: Source, tried: [String], found: Bool) {
            self.path = path
            self.source = source
            self.tried = tried
            self.found = found
        }

        /// "system instance at /run/lull/lull.sock", "the daemon at /tmp/x.sock (LULL_SOCKET)".
        public var description: String {
            switch source {
            case .user: "user instance at \(path)"
            case .system: "system instance at \(path)"
            case .environment: "\(SocketDiscovery.instanceName(path)) at \(path) (LULL_SOCKET)"
            case .flag: "\(SocketDiscovery.instanceName(path)) at \(path) (--socket)"
            }
        }
    }

    public var environment: [String: String]
    public var systemSocket: String
    /// Whether a socket exists at a path (injected by tests).
    public var exists: @Sendable (String) -> Bool

    public init(
        environment: [String: String],
        systemSocket: String = LullDefaults.systemSocketPath,
        exists: @escaping @Sendable (String) -> Bool
    ) {
        self.environment = environment
        self.systemSocket = systemSocket
        self.exists = exists
    }

    public var userSocket: String { LullDefaults.socketPath(environment: environment) }

    /// The socket to use. When none exists, the first one tried, with `tried` listing them all,
    /// so the error can name every place looked at.
    public func choose(flag: String?, instance: Instance?) -> Choice {
        if let flag { return Choice(path: flag, source: .flag, tried: [], found: true) }
        // --system or --user-instance, given on this command line, beats a LULL_SOCKET set long ago.
        if instance == nil, let named = environment["LULL_SOCKET"], !named.isEmpty {
            return Choice(path: named, source: .environment, tried: [], found: true)
        }
        let candidates: [(String, Source)] =
            switch instance {
            case .user: [(userSocket, .user)]
            case .system: [(systemSocket, .system)]
            case nil: [(userSocket, .user), (systemSocket, .system)]
            }
        let tried = candidates.map(\.0)
        guard let found = candidates.first(where: { exists($0.0) }) else {
            return Choice(path: candidates[0].0, source: candidates[0].1, tried: tried, found: false)
        }
        return Choice(path: found.0, source: found.1, tried: tried, found: true)
    }

    static func instanceName(_ path: String) -> String {
        path == LullDefaults.systemSocketPath ? "system instance" : "daemon"
    }
}
