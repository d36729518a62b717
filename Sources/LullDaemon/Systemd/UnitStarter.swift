import LullSensors
import Synchronization

/// Starts systemd units: the seam completion hooks use, so tests can stand in for systemd.
protocol UnitStarting: Sendable {
    /// Asks the service manager to start `unit` (mode "replace"); returns the manager's job path.
    func start(unit: String) async throws -> String
}

/// `org.freedesktop.systemd1.Manager.StartUnit` over sd-bus, on the bus of the manager the
/// daemon belongs to. Connects on first use and again after the bus went away.
final class SystemdUnitStarter: UnitStarting {
    private let endpoint: BusEndpoint
    private let connection = Mutex<BusConnection?>(nil)

    init(endpoint: BusEndpoint) {
        self.endpoint = endpoint
    }

    func start(unit: String) async throws -> String {
        try await connected().perform { context in
            let reply = try context.call(
                destination: "org.freedesktop.systemd1",
                path: "/org/freedesktop/systemd1",
                interface: "org.freedesktop.systemd1.Manager",
                member: "StartUnit",
                arguments: [.string(unit), .string("replace")]
            )
            return try reply.read().string ?? ""
        }
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
        let bus = try await BusConnection.connect(endpoint, name: "lull-hooks")
        bus.setDisconnectHandler { [weak self] in self?.connection.withLock { $0 = nil } }
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
