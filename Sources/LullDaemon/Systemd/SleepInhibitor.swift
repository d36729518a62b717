import Logging
import LullSensors
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Holds a logind "delay" inhibitor for sleep, so the daemon gets a moment to checkpoint its
/// transfers when the machine suspends: on `PrepareForSleep(true)` it checkpoints (through
/// `onSleep`) and then releases the inhibitor, which lets the suspend proceed; on
/// `PrepareForSleep(false)` it takes the inhibitor again and lets the queue be re-evaluated.
final class SleepInhibitor: Sendable {
    private let bus: BusConnection
    private let logger: Logger
    /// The inhibitor: logind keeps the lock while this fd is open.
    private let lock = Mutex<CInt?>(nil)
    private let follower = Mutex<Task<Void, Never>?>(nil)

    private init(bus: BusConnection, logger: Logger) {
        self.bus = bus
        self.logger = logger
    }

    /// Connects to logind on `endpoint`, subscribes to `PrepareForSleep` and takes the
    /// inhibitor. nil (with a log line) when there is no logind to talk to. When logind refuses
    /// the inhibitor (polkit), the signals are still followed: the checkpoint then races the
    /// suspend, and the queue is still looked at again on waking.
    static func start(
        on endpoint: BusEndpoint,
        logger: Logger,
        sleeping: @escaping @Sendable () async -> Void,
        woke: @escaping @Sendable () async -> Void
    ) async -> SleepInhibitor? {
        let (signals, continuation) = AsyncStream.makeStream(of: Bool.self)
        let inhibitor: SleepInhibitor
        do {
            let bus = try await BusConnection.connect(endpoint, name: "lull-logind")
            inhibitor = SleepInhibitor(bus: bus, logger: logger)
            try await bus.perform { context in
                try context.addMatch(
                    "type='signal',sender='org.freedesktop.login1',path='/org/freedesktop/login1',interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"
                ) { message in
                    if let going = try? message.read().bool { continuation.yield(going) }
                }
            }
            bus.setDisconnectHandler { continuation.finish() }
        } catch {
            logger.notice(
                "no sleep inhibitor: logind is not reachable on \(endpoint) (\(error)); transfers are not checkpointed before suspend",
                metadata: ["bus": "\(endpoint)", "error": "\(error)"]
            )
            continuation.finish()
            return nil
        }
        do { try await inhibitor.take() } catch {
            logger.notice(
                "no sleep inhibitor: logind refused it (\(error)); transfers are checkpointed on PrepareForSleep without a delay",
                metadata: ["bus": "\(endpoint)", "error": "\(error)"]
            )
        }
        let task = Task {
            for await going in signals {
                if going {
                    await sleeping()
                    inhibitor.release()
                } else {
                    do { try await inhibitor.take() } catch {
                        logger.warning(
                            "could not take the sleep inhibitor again after a wake-up: \(error); the next suspend does not wait for checkpoints",
                            metadata: ["error": "\(error)"]
                        )
                    }
                    await woke()
                }
            }
        }
        inhibitor.follower.withLock { $0 = task }
        return inhibitor
    }

    /// Whether the inhibitor is held now.
    var isHeld: Bool { lock.withLock { $0 != nil } }

    func stop() async {
        follower.withLock { $0 }?.cancel()
        release()
        await bus.close()
    }

    private func take() async throws {
        guard !isHeld else { return }
        let fd = try await bus.perform { context in
            try context.call(
                destination: "org.freedesktop.login1",
                path: "/org/freedesktop/login1",
                interface: "org.freedesktop.login1.Manager",
                member: "Inhibit",
                arguments: [
                    .string("sleep"), .string("lulld"), .string("checkpointing background transfers"), .string("delay"),
                ]
            ).readFileDescriptor()
        }
        let previous = lock.withLock { current -> CInt? in
            defer { current = fd }
            return current
        }
        if let previous { close(previous) }
        logger.info("holding a sleep delay inhibitor")
    }

    private func release() {
        guard
            let fd = lock.withLock({ current -> CInt? in
                defer { current = nil }
                return current
            })
        else { return }
        close(fd)
        logger.info("sleep inhibitor released")
    }
}
