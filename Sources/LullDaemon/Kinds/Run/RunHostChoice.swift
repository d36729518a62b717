import CSystemd
import LullSensors
import LullTransfer

#if canImport(Glibc)
import Glibc
#endif

/// Where run jobs' commands run, resolved at start-up from `[run] host`: as units of the
/// service manager this daemon belongs to (the system's, with `User=` the owner; or its user's
/// own), or started by lulld itself.
struct RunHostChoice: Sendable, CustomStringConvertible {
    /// `.systemd` or `.process`.
    let host: RunHost
    let endpoint: BusEndpoint
    /// The units go to the system manager, so each carries `User=`.
    let isSystemManager: Bool

    /// `host` as `resolve` gave it.
    init(resolved host: RunHost) {
        let user = OwnServiceManager.isUsers
        endpoint = user ? .user : .system
        isSystemManager = !user
        self.host = host == .auto ? Self.resolve(.auto) : host
    }

    /// `auto` becomes `systemd` for a daemon in a user's own service manager, which may start
    /// that user's units without asking anyone; else `process`. The system instance runs
    /// commands as units only when asked to (`host = "systemd"`), as that needs a polkit rule
    /// that cannot be fenced (examples/50-lull-jobs.rules says why).
    static func resolve(_ setting: RunHost) -> RunHost {
        switch setting {
        case .systemd, .process: setting
        case .auto: OwnServiceManager.isUsers && sd_booted() > 0 ? .systemd : .process
        }
    }

    /// The manager to run commands through, on the systemd host.
    func makeManager() -> SystemdServiceManager? {
        host == .systemd ? SystemdServiceManager(endpoint: endpoint) : nil
    }

    var description: String {
        host == .systemd
            ? "as units of the \(isSystemManager ? "system" : "user") manager (\(endpoint))" : "started by lulld itself"
    }
}
