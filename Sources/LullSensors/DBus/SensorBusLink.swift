import Logging
import Synchronization

/// The one D-Bus connection of a bus-backed sensor: opened and set up on the bus thread,
/// closed on stop. A connection whose set-up fails is closed before the error goes on.
final class SensorBusLink: Sendable {
    private let connection = Mutex<BusConnection?>(nil)

    /// Connects to `bus`, warns through `logger` if the connection is ever lost (`what` names
    /// the state that stops following), and runs `setUp` (subscribe, then read) on the bus thread.
    func open(
        _ bus: BusEndpoint,
        name: String,
        following what: String,
        logger: Logger,
        setUp: @escaping @Sendable (BusContext) throws -> Void
    ) async throws {
        let connection = try await BusConnection.connect(bus, name: name)
        self.connection.withLock { $0 = connection }
        connection.setDisconnectHandler {
            logger.warning("lost the D-Bus connection; \(what) will not follow changes")
        }
        do {
            try await connection.perform(setUp)
        } catch {
            await close()
            throw error
        }
    }

    /// Runs `body` on the bus thread; nothing when the link is not open.
    func perform(_ body: @escaping @Sendable (BusContext) throws -> Void) async throws {
        guard let connection = connection.withLock({ $0 }) else { return }
        try await connection.perform(body)
    }

    func close() async {
        let connection = self.connection.withLock { current -> BusConnection? in
            defer { current = nil }
            return current
        }
        await connection?.close()
    }
}
