import Foundation
import LullCore
import Testing

@testable import LullSensors

private let nm = "org.freedesktop.NetworkManager"
private let nmPath = "/org/freedesktop/NetworkManager"

/// A network source whose readings the test sets: the kernel's side.
final class ScriptedNetworkSource: NetworkSource {
    private let broadcaster: StateBroadcaster<NetworkReading>
    init(_ reading: NetworkReading) { broadcaster = StateBroadcaster(reading) }
    var current: NetworkReading { broadcaster.current }
    func changes() -> AsyncStream<NetworkReading> { broadcaster.changes() }
    func values() -> AsyncStream<NetworkReading> { broadcaster.values() }
    func start() async throws {}
    func stop() async { broadcaster.finish() }
    func set(_ reading: NetworkReading) { broadcaster.update(reading) }
}

@Suite("NetworkManager checked against the kernel's routes", .serialized, .timeLimit(.minutes(1)))
struct KernelCheckedNetworkTests {
    static let kernelOnline = NetworkReading(
        state: NetworkState(
            connectivity: .online,
            interface: "eth0",
            source: "rtnetlink eth0 (default route, ethernet)"
        ),
        link: .ethernet
    )
    static let kernelOffline = NetworkReading(
        state: NetworkState(connectivity: .offline, source: "rtnetlink (no default route)"),
        link: .unknown
    )
    static func manager(_ connectivity: NetworkState.Connectivity, metered: Bool = false) -> NetworkReading {
        NetworkReading(
            state: NetworkState(connectivity: connectivity, metered: metered, source: "NetworkManager"),
            link: .unknown
        )
    }

    @Test("which reading is published")
    func merging() {
        func merged(_ manager: NetworkReading, onBus: Bool = true, _ kernel: NetworkReading) -> NetworkReading {
            KernelCheckedNetworkSource.reading(manager: manager, managerOnBus: onBus, kernel: kernel)
        }
        // NetworkManager offline beside a link it does not manage: the kernel's link carries traffic.
        let unmanaged = merged(Self.manager(.offline), Self.kernelOnline)
        #expect(unmanaged.state.connectivity == .online && unmanaged.state.interface == "eth0")
        #expect(unmanaged.state.source.hasSuffix("; NetworkManager sees no connectivity of its own"))
        // Offline on both sides is offline.
        #expect(merged(Self.manager(.offline), Self.kernelOffline) == Self.manager(.offline))
        // NetworkManager's own answers stand, metering included.
        #expect(merged(Self.manager(.online, metered: true), Self.kernelOnline) == Self.manager(.online, metered: true))
        #expect(
            merged(Self.manager(.unknown, metered: true), Self.kernelOnline) == Self.manager(.unknown, metered: true)
        )
        // Gone from the bus: the kernel's reading, whatever it is.
        let gone = merged(Self.manager(.unknown), onBus: false, Self.kernelOffline)
        #expect(gone.state.connectivity == .offline)
        #expect(gone.state.source == "rtnetlink (no default route); NetworkManager not on the bus")
    }

    @Test("NetworkManager saying NONE and leaving the bus, followed")
    func following() async throws {
        let bus = try PrivateBus.start()
        defer { bus.shutDown() }
        let daemon = try await bus.startTemplate("networkmanager", busName: nm)
        let client = try await bus.client()
        let manager = NetworkManagerSource(bus: .address(bus.address))
        try await manager.start()
        let kernel = ScriptedNetworkSource(Self.kernelOnline)
        let checked = KernelCheckedNetworkSource(manager: manager, kernel: kernel, logger: .init(label: "test"))
        try await checked.start()
        #expect(checked.current.state.connectivity == .online)

        var changes = checked.changes()
        try await client.setProperty(nm, nmPath, nm, "Connectivity", .uint32(1))
        let (unmanaged, _) = try await firstValue(changes, "the kernel's route while NetworkManager says NONE") {
            $0.state.source.contains("no connectivity of its own")
        }
        #expect(unmanaged.state.connectivity == .online && unmanaged.state.interface == "eth0")

        changes = checked.changes()
        kernel.set(Self.kernelOffline)
        let (offline, _) = try await firstValue(changes, "offline on both sides") { $0.state.connectivity == .offline }
        #expect(offline.state.source.hasPrefix("NetworkManager"))

        changes = checked.changes()
        daemon.stop()
        let (gone, _) = try await firstValue(changes, "NetworkManager gone") {
            $0.state.source.contains("not on the bus")
        }
        #expect(gone.state.connectivity == .offline, "the kernel's word: no default route")
        await checked.stop()
        await client.close()
    }
}
