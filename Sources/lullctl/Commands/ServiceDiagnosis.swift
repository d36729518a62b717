import Foundation
import LullAPI
import LullClient

#if canImport(Glibc)
import Glibc
#endif

/// Why no daemon answered, as systemd knows it: when `lulld.service` failed (a broken config,
/// say), "is it running?" is the wrong question, so the error names the unit's state and exit
/// status instead. systemd is asked only after a call failed, so a working call costs nothing.
enum ServiceDiagnosis {
    /// Whether a socket file exists at `path`.
    static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    /// A better message for `error` than the client's own, or nil to keep that one.
    static func unreachable(_ error: LullClientError, target: SocketDiscovery.Choice) -> String? {
        guard case .unreachable(let path, let reason) = error else { return nil }
        if reason == .noSocket, !target.found, target.tried.count > 1 {
            let places = target.tried.map {
                "\($0) (\($0 == LullDefaults.systemSocketPath ? "system" : "user") instance)"
            }
            let failed = failure(of: .system).map { " " + $0 } ?? ""
            return "no lulld found: there is no socket at \(places.joined(separator: " or at ")).\(failed)"
                + (failed.isEmpty
                    ? " Start your own with `systemctl --user start lulld.socket` (or `lulld`), ask an admin to start the system instance (`systemctl start lulld.socket`), or point LULL_SOCKET / --socket at a daemon's socket."
                    : "")
        }
        guard let manager = manager(for: path, target: target), let failed = failure(of: manager) else { return nil }
        return "nothing answers on \(path): \(failed)"
    }

    enum Manager {
        case system, user

        var systemctl: String { self == .system ? "systemctl" : "systemctl --user" }
        var journalctl: String { self == .system ? "journalctl -u lulld" : "journalctl --user -u lulld" }
        var checkConfig: String { self == .system ? "lulld --check-config --system" : "lulld --check-config --user" }
    }

    static func manager(for path: String, target: SocketDiscovery.Choice) -> Manager? {
        if path == LullDefaults.systemSocketPath { return .system }
        if target.source == .user { return .user }
        let user = SocketDiscovery(environment: CallerEnvironment.all, exists: { _ in false }).userSocket
        return path == user ? .user : nil
    }

    /// "lulld.service failed (exit status 2: invalid configuration) …" with what to do, or nil
    /// when neither unit failed (or systemctl is not there to ask).
    static func failure(of manager: Manager) -> String? {
        guard let units = UnitStates.read(manager) else { return nil }
        let service = units["lulld.service"] ?? [:]
        let socket = units["lulld.socket"] ?? [:]
        let serviceFailed = service["ActiveState"] == "failed"
        let socketFailed = socket["ActiveState"] == "failed"
        guard serviceFailed || socketFailed else { return nil }
        var words: [String] = []
        if serviceFailed { words.append("lulld.service failed (\(outcome(service)))") }
        if socketFailed {
            words.append("lulld.socket \(serviceFailed ? "stopped too" : "failed") (\(socket["Result"] ?? "?"))")
        }
        let config =
            service["ExecMainStatus"] == "\(LulldExitStatus.invalidConfiguration.rawValue)"
            ? " (`\(manager.checkConfig)` names each problem)" : ""
        return words.joined(separator: "; ")
            + ". `\(manager.systemctl) status lulld` and `\(manager.journalctl)` show why. "
            + "Once the cause is fixed\(config), `\(manager.systemctl) reset-failed lulld.service lulld.socket` and `\(manager.systemctl) start lulld.socket` bring it back"
            + (manager == .system ? " (an admin's job)." : ".")
    }

    /// "exit status 2: invalid configuration", "killed by signal 9", "watchdog".
    static func outcome(_ unit: [String: String]) -> String {
        let result = unit["Result"] ?? "?"
        let status = Int32(unit["ExecMainStatus"] ?? "") ?? 0
        switch result {
        case "exit-code": return LulldExitStatus.describe(status)
        case "signal", "core-dump": return "killed by signal \(status)"
        default: return result
        }
    }
}
