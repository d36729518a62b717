import CSystemd
import LullCore
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
    /// On the process host, when lulld cannot run other users' commands: its own uid, the one
    /// owner whose commands it runs. Nil: anyone's.
    let commandsOnlyOf: OwnerID?

    /// `host` as `resolve` gave it.
    init(resolved host: RunHost) {
        let user = OwnServiceManager.isUsers
        endpoint = user ? .user : .system
        isSystemManager = !user
        self.host = host == .auto ? Self.resolve(.auto) : host
        commandsOnlyOf = self.host == .process ? ProcessHostRights.commandsOnlyOf() : nil
    }

    /// `auto` becomes `systemd` for a daemon running as a service of a user's own service
    /// manager, which may start that user's units without asking anyone; else `process`. The
    /// system instance runs commands as units only when asked to (`host = "systemd"`), as that
    /// needs a polkit rule that cannot be fenced (examples/50-lull-jobs.rules says why).
    static func resolve(_ setting: RunHost) -> RunHost {
        switch setting {
        case .systemd, .process: setting
        case .auto: autoHost(userUnit: OwnServiceManager.userUnit, booted: sd_booted() > 0)
        }
    }

    /// A lulld started by hand from a desktop's terminal is in a scope of the user's manager,
    /// not its service: it runs its commands itself, as one started over SSH does, and never in
    /// units beside those of the user's own lulld.
    static func autoHost(userUnit: String?, booted: Bool) -> RunHost {
        booted && userUnit?.hasSuffix(".service") == true ? .systemd : .process
    }

    /// The manager to run commands through, on the systemd host.
    func makeManager(sleeper: any Sleeper) -> SystemdServiceManager? {
        host == .systemd ? SystemdServiceManager(endpoint: endpoint, sleeper: sleeper) : nil
    }

    var description: String {
        if host == .systemd { return "as units of the \(isSystemManager ? "system" : "user") manager (\(endpoint))" }
        guard let only = commandsOnlyOf else { return "started by lulld itself" }
        return
            "started by lulld itself, for uid \(only.rawValue) only: without CAP_SETUID, CAP_SETGID and CAP_KILL, and the system calls to use them, it can neither become another uid nor stop its processes; [run] host = \"systemd\" runs every user's"
    }
}
