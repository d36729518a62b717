import CSystemd
import LullCore

#if canImport(Glibc)
import Glibc
#endif

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

    /// Runs `body` while asking the manager for `period * 3` more time, at once and then after
    /// every `period` in which `progress` moved: a restore or drain that makes progress is never
    /// killed by `TimeoutStartSec=`/`TimeoutStopSec=`, while one that hangs still is.
    func extendingTimeout<T: Sendable>(
        every period: Duration = .seconds(5),
        progress: @escaping @Sendable () async -> Int,
        _ body: () async throws -> T
    ) async rethrows -> T {
        let extender = Task { [sleeper] in
            await Self.extendWhileProgressing(every: period, progress: progress, sleeper: sleeper) {
                extendTimeout(by: $0)
            }
        }
        defer { extender.cancel() }
        return try await body()
    }

    /// The extension loop of `extendingTimeout`, until cancelled. Extending on a timer alone
    /// would keep a wedged stop alive for ever.
    static func extendWhileProgressing(
        every period: Duration,
        progress: @Sendable () async -> Int,
        sleeper: any Sleeper,
        extend: (Duration) -> Void
    ) async {
        var seen: Int?
        while !Task.isCancelled {
            let now = await progress()
            if now != seen {
                extend(period * 3)
                seen = now
            }
            do { try await sleeper.sleep(for: period) } catch { return }
        }
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
