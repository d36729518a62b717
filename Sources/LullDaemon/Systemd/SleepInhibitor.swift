import Logging
import LullCore
import LullSensors
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Holds a logind "delay" inhibitor for sleep, so the daemon gets a moment to checkpoint its
/// transfers when the machine suspends: on `PrepareForSleep(true)` it checkpoints (through
/// `onSleep`) and then releases the inhibitor, which lets the suspend proceed; on
/// `PrepareForSleep(false)` it takes the inhibitor again and lets the queue be re-evaluated.
///
/// The inhibitor is a descriptor, not part of the bus connection: when the bus goes away it is
/// released (else logind would hold every suspend for its delay, with nobody left to hear
/// `PrepareForSleep`), and the connection is made again with backoff.
final class SleepInhibitor: Sendable {
    private let endpoint: BusEndpoint
    private let logger: Logger
    private let bus = Mutex<BusConnection?>(nil)
    /// The inhibitor: logind keeps the lock while this fd is open.
    private let lock = Mutex<CInt?>(nil)
    private let follower = Mutex<Task<Void, Never>?>(nil)
    /// The first wait before connecting again after the bus went away; doubled up to a minute.
    private let reconnectDelay: Duration
    /// The event loops' timers, not `Task.sleep` (see `Sleeper`).
    private let sleeper: any Sleeper

    private init(endpoint: BusEndpoint, logger: Logger, reconnectDelay: Duration, sleeper: any Sleeper) {
        self.endpoint = endpoint
        self.logger = logger
        self.reconnectDelay = reconnectDelay
        self.sleeper = sleeper
    }

    /// Connects to logind on `endpoint`, subscribes to `PrepareForSleep` and takes the
    /// inhibitor. nil (with a log line) when there is no logind to talk to at start. When logind
    /// refuses the inhibitor (polkit), the signals are still followed: the checkpoint then races
    /// the suspend, and the queue is still looked at again on waking.
    static func start(
        on endpoint: BusEndpoint,
        logger: Logger,
        sleeper: any Sleeper,
        reconnectDelay: Duration = .seconds(1),
        sleeping: @escaping @Sendable () async -> Void,
        woke: @escaping @Sendable () async -> Void
    ) async -> SleepInhibitor? {
        let inhibitor = SleepInhibitor(
            endpoint: endpoint,
            logger: logger,
            reconnectDelay: reconnectDelay,
            sleeper: sleeper
        )
        let first: AsyncStream<Bool>
        do {
            first = try await inhibitor.connect()
        } catch {
            logger.notice(
                "no sleep inhibitor: logind is not reachable on \(endpoint) (\(error)); transfers are not checkpointed before suspend",
                metadata: ["bus": "\(endpoint)", "error": "\(error)"]
            )
            return nil
        }
        do { try await inhibitor.take() } catch {
            logger.notice(
                "no sleep inhibitor: logind refused it (\(error)); transfers are checkpointed on PrepareForSleep without a delay",
                metadata: ["bus": "\(endpoint)", "error": "\(error)"]
            )
        }
        let task = Task {
            var signals = first
            while !Task.isCancelled {
                await inhibitor.follow(signals, sleeping: sleeping, woke: woke)
                guard !Task.isCancelled, let next = await inhibitor.reconnect() else { return }
                signals = next
                // The PrepareForSleep(false) of a wake while the bus was gone is lost: unless
                // logind says it is preparing for sleep now, lulld is awake.
                if await !inhibitor.preparingForSleep() { await woke() }
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
        await bus.withLock { $0 }?.close()
    }

    /// A new connection subscribed to `PrepareForSleep`; its signals end when it goes away.
    private func connect() async throws -> AsyncStream<Bool> {
        let (signals, continuation) = AsyncStream.makeStream(of: Bool.self)
        let connection = try await BusConnection.connect(endpoint, name: "lull-logind")
        connection.setDisconnectHandler { continuation.finish() }
        do {
            try await connection.perform { context in
                try context.addMatch(
                    "type='signal',sender='org.freedesktop.login1',path='/org/freedesktop/login1',interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"
                ) { message in
                    if let going = try? message.read().bool { continuation.yield(going) }
                }
            }
        } catch {
            await connection.close()
            throw error
        }
        let previous = bus.withLock { current -> BusConnection? in
            defer { current = connection }
            return current
        }
        await previous?.close()
        return signals
    }

    /// Until the connection goes away (or the task is cancelled).
    private func follow(
        _ signals: AsyncStream<Bool>,
        sleeping: @Sendable () async -> Void,
        woke: @Sendable () async -> Void
    ) async {
        for await going in signals {
            if going {
                await sleeping()
                release()
            } else {
                do { try await take() } catch {
                    logger.warning(
                        "could not take the sleep inhibitor again after a wake-up: \(error); the next suspend does not wait for checkpoints",
                        metadata: ["error": "\(error)"]
                    )
                }
                await woke()
            }
        }
    }

    /// After the bus went away: lets go of the inhibitor, then connects again with backoff and
    /// takes it again. nil once cancelled.
    private func reconnect() async -> AsyncStream<Bool>? {
        release()
        logger.warning(
            "lost the bus connection to logind; the sleep inhibitor is released until it is back",
            metadata: ["bus": "\(endpoint)"]
        )
        var delay = reconnectDelay
        while !Task.isCancelled {
            do { try await sleeper.sleep(for: delay) } catch { return nil }
            do {
                let signals = try await connect()
                do { try await take() } catch {
                    logger.notice(
                        "back on the bus to logind, but it refused the sleep inhibitor (\(error)); transfers are checkpointed on PrepareForSleep without a delay",
                        metadata: ["error": "\(error)"]
                    )
                }
                logger.notice("following logind's suspend signals again", metadata: ["bus": "\(endpoint)"])
                return signals
            } catch {
                delay = min(delay * 2, .seconds(60))
            }
        }
        return nil
    }

    /// logind's `PreparingForSleep`; false when it cannot be read (staying asleep would hold
    /// the queue until the next suspend).
    private func preparingForSleep() async -> Bool {
        guard let connection = bus.withLock({ $0 }) else { return false }
        let value = try? await connection.perform { context in
            try context.get(
                destination: "org.freedesktop.login1",
                path: "/org/freedesktop/login1",
                interface: "org.freedesktop.login1.Manager",
                property: "PreparingForSleep"
            ).bool
        }
        return value == true
    }

    private func take() async throws {
        guard !isHeld, let connection = bus.withLock({ $0 }) else { return }
        let fd = try await connection.perform { context in
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
