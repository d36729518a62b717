import CSystemd

/// Talks the sd_notify protocol to the service manager. A no-op when not run by systemd
/// (no `NOTIFY_SOCKET`), so the daemon behaves the same from a shell.
struct SystemdNotifier: Sendable {
    func ready(status: String) {
        send("READY=1\nSTATUS=\(status)")
    }

    func status(_ text: String) {
        send("STATUS=\(text)")
    }

    func reloading() {
        send("RELOADING=1\nSTATUS=reloading the policy")
    }

    func stopping() {
        send("STOPPING=1\nSTATUS=stopping")
    }

    private func send(_ message: String) {
        _ = sd_notify(0, message)
    }

    /// Sockets passed by socket activation (`LISTEN_FDS`), as file descriptors.
    static func listenDescriptors() -> [CInt] {
        let count = sd_listen_fds(1)
        guard count > 0 else { return [] }
        return (0..<count).map { SD_LISTEN_FDS_START + $0 }
    }
}
