import Foundation
import LullCore
import LullSensors
import LullTestSupport
import LullTransfer
import Testing

@testable import LullDaemon

/// Following a run job's unit through a manager that is slow or whose bus goes away
/// (`Tests/Fixtures/systemd_units_mock.py` on a private bus).
@Suite(
    .serialized,
    .enabled(if: MockSystemBus.isAvailable, "needs dbus-daemon and python3-dbusmock (make test installs them)")
)
struct SystemdUnitFollowingTests {
    static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/systemd_units_mock.py").path
    static let unit = "lull-run-7.service"

    /// GetUnit times out three times while the command runs (a busy manager): the unit is
    /// followed on, not given up as failed (which left the command running and started it
    /// again in the next attempt), and its real end is reported.
    @Test func aStateThatCannotBeReadForAMomentIsAskedAgain() async throws {
        let bus = try startManager()
        defer { bus.stop() }
        try mock(bus, "AddUnit('\(Self.unit)', '\(UnitChanges.path(of: Self.unit))')")
        let manager = SystemdServiceManager(endpoint: .address(bus.address), sleeper: TaskSleeper())
        defer { Task { await manager.close() } }
        try mock(bus, "FailGetUnit(3)")
        let end = Task { await manager.end(of: Self.unit) }
        try await waitUntil("the three failures to be used", timeout: .seconds(20)) {
            try mock(bus, "GetUnitFailuresLeft()") == "0"
        }
        try mock(bus, "ExitUnit('\(Self.unit)', 0)")
        let ended = await end.value
        #expect(ended.outcome == .exited(0), "\(ended.outcome)")
        #expect(try mock(bus, "Count('StopUnit \(Self.unit)')") == "0")
    }

    /// A unit's reference belongs to the connection that took it: after the bus came back, the
    /// manager takes it again on its new connection, so a unit that ends is not collected
    /// before its result is read.
    @Test func referencesAreTakenAgainOnANewConnection() async throws {
        let bus = try startManager()
        defer { bus.stop() }
        let path = UnitChanges.path(of: Self.unit)
        try mock(bus, "AddUnit('\(Self.unit)', '\(path)')")
        let manager = SystemdServiceManager(endpoint: .address(bus.address), sleeper: TaskSleeper())
        defer { Task { await manager.close() } }
        try await manager.start(existing: Self.unit, jobID: JobID(7))
        #expect(try mock(bus, "RefCount('\(Self.unit)')") == "1")

        try bus.restart()
        // systemd keeps its units across a bus restart; the fresh mock has them added again.
        try mock(bus, "AddUnit('\(Self.unit)', '\(path)')")
        let end = Task { await manager.end(of: Self.unit) }
        try await waitUntil("the reference taken again", timeout: .seconds(20)) {
            try mock(bus, "RefCount('\(Self.unit)')") == "1"
        }
        try mock(bus, "ExitUnit('\(Self.unit)', 3)")
        #expect(await end.value.outcome == .exited(3))
        await manager.release(Self.unit)
        try bus.restart()
        try mock(bus, "AddUnit('\(Self.unit)', '\(path)')")
        _ = await manager.usage(of: Self.unit)
        #expect(try mock(bus, "RefCount('\(Self.unit)')") == "0", "a released unit is not taken again")
    }

    private func startManager() throws -> MockSystemBus {
        let bus = try MockSystemBus()
        do {
            try bus.startTemplate(Self.template, busName: SystemdServiceManager.destination)
        } catch {
            bus.stop()
            throw error
        }
        return bus
    }

    /// Calls a method of the mock's own interface on the manager object; its answer as printed.
    @discardableResult
    private func mock(_ bus: MockSystemBus, _ call: String) throws -> String {
        let result = try bus.python(
            """
            manager = dbus.Interface(bus.get_object('org.freedesktop.systemd1', '/org/freedesktop/systemd1'), 'org.freedesktop.DBus.Mock')
            answer = manager.\(call)
            if answer is not None: print(answer)
            """
        )
        guard result.status == 0 else { throw MockBusError("\(call): \(result.stderr.suffix(800))") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
