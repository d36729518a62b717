import Logging
import LullCore
import Synchronization

/// The one D-Bus connection of a bus-backed sensor: opened and set up on the bus thread, made
/// again after the bus went away (a dbus-broker restart), closed on stop. Set-up subscribes and
/// reads everything, so a new connection starts from a fresh reading. A connection whose set-up
/// fails is closed before the error goes on.
final class SensorBusLink: Sendable {
    private struct State {
        var connection: BusConnection?
        var reconnecting: Task<Void, Never>?
        var closed = false
        /// When the current connection was made, and the wait before it was made: a connection
        /// lost again soon after goes on backing off instead of starting over at a second.
        var connectedAt: ContinuousClock.Instant?
        var lastDelay: Duration?
        /// Whether a connection was ever set up (the log says "back on the D-Bus" only then).
        var wasSetUp = false
    }

    /// A connection that held this long is a fresh start: the backoff begins again.
    static let heldLongEnough = Duration.seconds(60)

    /// What a link follows, and how it tells of losing the bus and coming back.
    struct Follow: Sendable {
        var bus: BusEndpoint
        var name: String
        /// The state that stops following while the bus is gone, in the log's words.
        var what: String
        var logger: Logger
        var sleeper: any Sleeper
        /// Runs when the connection is lost (on the bus thread, before reconnecting begins).
        var lost: @Sendable () -> Void
        var setUp: @Sendable (BusContext) throws -> Void
    }

    private let state = Mutex(State())
    /// The first wait before connecting again, doubling up to a minute.
    private let reconnectDelay: Duration

    init(reconnectDelay: Duration = .seconds(1)) {
        self.reconnectDelay = reconnectDelay
    }

    /// Connects to `bus` and runs `setUp` (subscribe, then read) on the bus thread. If the
    /// connection is ever lost, `lost` runs and the link connects again with backoff, running
    /// `setUp` again. Throws when the first connection or set-up fails.
    func open(
        _ bus: BusEndpoint,
        name: String,
        following what: String,
        logger: Logger,
        sleeper: any Sleeper,
        lost: @escaping @Sendable () -> Void = {},
        setUp: @escaping @Sendable (BusContext) throws -> Void
    ) async throws {
        try await connect(
            Follow(bus: bus, name: name, what: what, logger: logger, sleeper: sleeper, lost: lost, setUp: setUp)
        )
    }

    /// The same, for a bus that may come later (lulld started before it): when the first
    /// connection or its set-up fails, `unreachable` is told why (before any later connection
    /// can set up, so the reading it publishes cannot overwrite a newer one) and the link looks
    /// again every `interval` (steady: a bus absent at start may never come, and an idle
    /// daemon must not wake for it more often). Returns false when closed meanwhile.
    func openOrWait(
        _ bus: BusEndpoint,
        name: String,
        following what: String,
        logger: Logger,
        sleeper: any Sleeper,
        every interval: Duration,
        lost: @escaping @Sendable () -> Void = {},
        unreachable: @Sendable (any Error) -> Void,
        setUp: @escaping @Sendable (BusContext) throws -> Void
    ) async -> Bool {
        let follow = Follow(
            bus: bus,
            name: name,
            what: what,
            logger: logger,
            sleeper: sleeper,
            lost: lost,
            setUp: setUp
        )
        do {
            try await connect(follow)
            return true
        } catch {
            guard !state.withLock({ $0.closed }) else { return false }
            unreachable(error)
            reconnect(follow, every: interval)
            return true
        }
    }

    /// Runs `body` on the bus thread; nothing when the link is not connected.
    func perform(_ body: @escaping @Sendable (BusContext) throws -> Void) async throws {
        guard let connection = state.withLock({ $0.connection }) else { return }
        try await connection.perform(body)
    }

    /// Closes the connection; a reconnection under way is cancelled and waited for, so no bus
    /// thread outlives the call.
    func close() async {
        let (connection, reconnecting) = state.withLock { state -> (BusConnection?, Task<Void, Never>?) in
            state.closed = true
            state.reconnecting?.cancel()
            defer { state.connection = nil }
            return (state.connection, state.reconnecting)
        }
        await reconnecting?.value
        await connection?.close()
    }

    private func connect(_ follow: Follow) async throws {
        let connection = try await BusConnection.connect(follow.bus, name: follow.name)
        let kept = state.withLock { state in
            guard !state.closed else { return false }
            state.connection = connection
            state.connectedAt = .now
            return true
        }
        guard kept else {
            await connection.close()
            throw CancellationError()
        }
        connection.setDisconnectHandler { [weak self] in
            follow.logger.warning(
                "lost the D-Bus connection; \(follow.what) does not follow changes until it is back",
                metadata: ["bus": "\(follow.bus)"]
            )
            follow.lost()
            self?.reconnect(follow)
        }
        do {
            try await connection.perform(follow.setUp)
        } catch {
            state.withLock { if $0.connection === connection { $0.connection = nil } }
            await connection.close()
            throw error
        }
        state.withLock { $0.wasSetUp = true }
        // Closed during the set-up: `close()` closes this connection once this returns.
        if state.withLock({ $0.closed }) { throw CancellationError() }
    }

    /// Connects again with backoff, or every `interval` when given.
    private func reconnect(_ follow: Follow, every interval: Duration? = nil) {
        state.withLock { state in
            guard !state.closed else { return }
            state.connection = nil
            state.reconnecting?.cancel()
            let again = state.wasSetUp ? "back on the D-Bus" : "on the D-Bus"
            let heldLong = state.connectedAt.map { .now - $0 >= Self.heldLongEnough } ?? true
            let first =
                interval ?? (heldLong ? reconnectDelay : min((state.lastDelay ?? reconnectDelay) * 2, .seconds(60)))
            state.reconnecting = Task { [weak self] in
                var delay = first
                while !Task.isCancelled {
                    do { try await follow.sleeper.sleep(for: delay) } catch { return }
                    guard let self else { return }
                    do {
                        self.state.withLock { $0.lastDelay = delay }
                        try await connect(follow)
                        follow.logger.notice(
                            "\(again); following \(follow.what)",
                            metadata: ["bus": "\(follow.bus)"]
                        )
                        return
                    } catch {
                        delay = interval ?? min(delay * 2, .seconds(60))
                    }
                }
            }
        }
    }
}
