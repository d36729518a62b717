#if canImport(Glibc)
import Glibc
#endif
import CSystemd
import LullCore

/// Talks the sd_notify protocol to the service manager. A no-op when not run by systemd
/// (no `NOTIFY_SOCKET`), so the daemon behaves the same from a shell.
struct SystemdNotifier: Sendable {
    /// How `extendingTimeout` waits between extensions.
    let sleeper: any Sleeper

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
        send("STOPPING=1\nSTATUS=stopping: checkpointing running transfers")
    }

    func watchdog() {
        send("WATCHDOG=1")
    }

    /// Asks for more time for the start-up or stop in progress (counted from now).
    func extendTimeout(by duration: Duration) {
        let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        send("EXTEND_TIMEOUT_USEC=\(micros)")
    }

    /// Runs `body` while telling the manager every `period` that it needs `period * 3` more:
    /// a restore or drain that makes progress is never killed by `TimeoutStartSec=`/
    /// `TimeoutStopSec=`, while one that hangs is (the extension stops with the process).
    func extendingTimeout<T: Sendable>(
        every period: Duration = .seconds(5), _ body: () async throws -> T
    ) async rethrows -> T {
        let extender = Task {
            while !Task.isCancelled {
                extendTimeout(by: period * 3)
                try? await sleeper.sleep(for: period)
            }
        }
        defer { extender.cancel() }
        return try await body()
    }

    private func send(_ message: String) {
        _ = sd_notify(0, message)
    }

    /// How often the manager expects `WATCHDOG=1` (`WatchdogSec=`), halved as sd_watchdog_enabled
    /// advises; nil when the watchdog is off or meant for another process.
    static func watchdogInterval() -> Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec / 2))
    }

    /// The socket passed by socket activation (`LISTEN_FDS`) whose `FileDescriptorName=` is
    /// `name`; else the first one passed (a unit without names); nil when nothing was passed.
    static func listenDescriptor(named name: String) -> CInt? {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        let count = sd_listen_fds_with_names(1, &names)
        guard count > 0 else { return nil }
        defer {
            if let names {
                for index in 0..<Int(count) { free(names[index]) }
                free(names)
            }
        }
        for index in 0..<Int(count) {
            if let entry = names?[index], String(cString: entry) == name { return SD_LISTEN_FDS_START + CInt(index) }
        }
        return SD_LISTEN_FDS_START
    }
}
