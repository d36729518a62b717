import LullSensors
import Synchronization

/// A bus connection made on first use and made again after the bus went away; `prepare` runs
/// on each new connection (signal subscriptions) before anyone else uses it.
final class ReconnectingBus: Sendable {
    private let endpoint: BusEndpoint
    private let name: String
    private let prepare: @Sendable (BusConnection) async throws -> Void
    private let connection = Mutex<BusConnection?>(nil)

    init(
        endpoint: BusEndpoint,
        name: String,
        prepare: @escaping @Sendable (BusConnection) async throws -> Void = { _ in }
    ) {
        self.endpoint = endpoint
        self.name = name
        self.prepare = prepare
    }

    /// Runs `body` on the bus thread of the current connection.
    func perform<T: Sendable>(_ body: @escaping @Sendable (BusContext) throws -> T) async throws -> T {
        try await connected().perform(body)
    }

    func close() async {
        let bus = connection.withLock { current -> BusConnection? in
            defer { current = nil }
            return current
        }
        await bus?.close()
    }

    private func connected() async throws -> BusConnection {
        if let bus = connection.withLock({ $0 }) { return bus }
        let bus = try await BusConnection.connect(endpoint, name: name)
        bus.setDisconnectHandler { [weak self] in self?.connection.withLock { $0 = nil } }
        do {
            try await prepare(bus)
        } catch {
            await bus.close()
            throw error
        }
        let winner = connection.withLock { current -> BusConnection? in
            if let current { return current }
            current = bus
            return nil
        }
        if let winner {
            await bus.close()
            return winner
        }
        return bus
    }
}
