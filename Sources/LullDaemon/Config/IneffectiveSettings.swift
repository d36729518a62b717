/// `[daemon]` keys that parse but cannot act where lulld runs: a command-line flag wins over
/// them, or systemd made the socket (socket activation). The shipped units do both, so an admin
/// who sets `socket_mode` in /etc/lull/lull.toml would otherwise see nothing happen.
public enum IneffectiveSettings {
    /// What decides the state directory and the socket instead of the file.
    public struct Mode: Sendable {
        enum Source: Sendable {
            /// units/lulld.service and units/lulld.socket, as installed.
            case systemUnits
            /// units/user/lulld.service and units/user/lulld.socket.
            case userUnits
            /// The running process: its flags and whether systemd passed it a socket.
            case process
        }

        var source: Source
        var socketActivated: Bool
        /// `--state-dir`, `--socket` as given (nil: not given).
        var stateDirectoryFlag: String?
        var socketFlag: String?

        /// Under the shipped system units: `--state-dir ${STATE_DIRECTORY} --socket
        /// /run/lull/lull.sock`, the socket from lulld.socket.
        public static let systemUnits = Mode(
            source: .systemUnits,
            socketActivated: true,
            stateDirectoryFlag: "${STATE_DIRECTORY}",
            socketFlag: "/run/lull/lull.sock"
        )
        /// Under the shipped user units: `--socket %t/lull/lull.sock`, the socket from
        /// lulld.socket; the state directory is lulld's default or the file's.
        public static let userUnits = Mode(
            source: .userUnits,
            socketActivated: true,
            stateDirectoryFlag: nil,
            socketFlag: "%t/lull/lull.sock"
        )

        /// The daemon as started: `options` are its flags.
        public static func running(_ options: DaemonOptions?, socketActivated: Bool) -> Mode {
            Mode(
                source: .process,
                socketActivated: socketActivated,
                stateDirectoryFlag: options?.stateDirectory,
                socketFlag: options?.socketPath
            )
        }

        /// What an admin edits to change the socket: "a drop-in of lulld.socket (systemctl edit lulld.socket)".
        var socketUnitDropIn: String {
            switch source {
            case .systemUnits: "a lulld.socket drop-in (systemctl edit lulld.socket)"
            case .userUnits: "a lulld.socket drop-in (systemctl --user edit lulld.socket)"
            case .process: "a drop-in of the socket unit that starts lulld"
            }
        }

        var place: String {
            switch source {
            case .systemUnits: "under the shipped system units"
            case .userUnits: "under the shipped user units"
            case .process: "in this run"
            }
        }

        var socketMode: String {
            switch source {
            case .systemUnits: "SocketMode=0660 (SocketGroup=lull-clients)"
            case .userUnits: "SocketMode=0600"
            case .process: "its SocketMode="
            }
        }
    }

    /// One warning per key of `config` that has no effect in `mode`.
    public static func warnings(for config: DaemonConfig, in mode: Mode) -> [ConfigWarning] {
        var warnings: [ConfigWarning] = []
        func warn(_ key: String, _ message: String) {
            if let origin = config.origins["daemon.\(key)"] {
                warnings.append(ConfigWarning(origin: origin, message: message))
            }
        }
        let place = mode.place
        if let flag = mode.stateDirectoryFlag {
            switch mode.source {
            case .systemUnits:
                warn(
                    "state_dir",
                    "has no effect \(place): lulld.service starts lulld with --state-dir \(flag) (/var/lib/lull), which wins over the file; to move the store, set StateDirectory= in a lulld.service drop-in (systemctl edit lulld.service) and remove this key"
                )
            default:
                warn(
                    "state_dir",
                    "has no effect \(place): --state-dir \(flag) on the command line wins over the file; remove this key or the flag"
                )
            }
        }
        if mode.socketActivated {
            let unit =
                mode.source == .process
                ? "the socket unit's ListenStream=" : "lulld.socket's ListenStream=\(mode.socketFlag ?? "")"
            warn(
                "socket",
                "has no effect \(place): systemd creates the socket (socket activation) at \(unit); to move it, set ListenStream= in \(mode.socketUnitDropIn)\(mode.socketFlag != nil ? " and the --socket of lulld.service's ExecStart= and ExecReload=" : ""), and remove this key"
            )
            warn(
                "socket_mode",
                "has no effect \(place): systemd creates the socket (socket activation) with \(mode.socketMode); set SocketMode= (and SocketGroup=) in \(mode.socketUnitDropIn) instead, and remove this key"
            )
            if mode.source != .process, config.socketName != "control" {
                warn(
                    "socket_name",
                    "has no effect \(place): lulld.socket passes one socket, named \"control\" (FileDescriptorName=control), and lulld serves it whatever this says; remove this key"
                )
            }
        } else {
            if let flag = mode.socketFlag {
                warn(
                    "socket",
                    "has no effect \(place): --socket \(flag) on the command line wins over the file; remove this key or the flag"
                )
            }
            warn(
                "socket_name",
                "has no effect \(place): lulld was not socket-activated, so it binds `socket` itself and there is no passed socket to choose; remove this key"
            )
        }
        return warnings
    }
}
