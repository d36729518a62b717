import LullSensors

/// Starts systemd units: the seam completion hooks use, so tests can stand in for systemd.
protocol UnitStarting: Sendable {
    /// Asks the service manager to start `unit` (mode "replace"); returns the manager's job path.
    func start(unit: String) async throws -> String
}

/// `org.freedesktop.systemd1.Manager.StartUnit` over sd-bus, on the bus of the manager the
/// daemon belongs to. Connects on first use and again after the bus went away.
final class SystemdUnitStarter: UnitStarting {
    private let bus: ReconnectingBus

    init(endpoint: BusEndpoint) {
        bus = ReconnectingBus(endpoint: endpoint, name: "lull-hooks")
    }

    func start(unit: String) async throws -> String {
        try await bus.perform { context in
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

    func close() async { await bus.close() }
}
