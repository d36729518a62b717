import Foundation
import LullCore
import LullTestSupport
import Testing

@testable import LullSensors

private let login1 = "org.freedesktop.login1"

@Suite("logind idleness against python-dbusmock on a private bus", .serialized, .timeLimit(.minutes(1)))
struct LogindIdleSourceTests {
    /// Sets the manager's idle properties in one `PropertiesChanged`, as logind sends them.
    private func setIdle(_ bus: PrivateBus, hint: Bool, sinceMicroseconds: UInt64) throws {
        try bus.python(
            """
            obj = bus.get_object('org.freedesktop.login1', '/org/freedesktop/login1')
            obj.UpdateProperties('org.freedesktop.login1.Manager',
                                 {'IdleHint': \(hint ? "True" : "False"), 'IdleSinceHint': dbus.UInt64(\(sinceMicroseconds))},
                                 dbus_interface='org.freedesktop.DBus.Mock')
            """
        )
    }

    @Test("IdleHint and IdleSinceHint are read at start and followed")
    func followsIdleHint() async throws {
        let bus = try PrivateBus.start()
        defer { bus.shutDown() }
        try await bus.startTemplate("logind", busName: login1)
        let source = LogindIdleSource(bus: .address(bus.address))
        await source.start()
        #expect(source.current == IdleState(.active, source: "logind IdleHint false"))

        // The user left at a known wall-clock time: the reading carries it to the microsecond.
        let since: UInt64 = 1_795_000_000_123_456
        var changes = source.changes()
        try setIdle(bus, hint: true, sinceMicroseconds: since)
        let (idle, _) = try await firstValue(changes, "IdleHint=true") { $0.since != nil }
        #expect(idle.source == "logind IdleHint true")
        #expect(idle.since == Date(timeIntervalSince1970: 1_795_000_000.123456))

        changes = source.changes()
        try setIdle(bus, hint: false, sinceMicroseconds: since + 60_000_000)
        let (back, _) = try await firstValue(changes, "IdleHint=false") { $0.state == .active }
        #expect(back == IdleState(.active, source: "logind IdleHint false"))
        await source.stop()
    }

    /// Changes the manager's `IdleHint` the way logind does for everything but a session's own
    /// `SetIdleHint`: without a `PropertiesChanged` for it.
    private func setIdleSilently(_ bus: PrivateBus, hint: Bool) throws {
        try bus.python(
            """
            obj = bus.get_object('org.freedesktop.login1', '/org/freedesktop/login1')
            obj.AddMethod('org.freedesktop.login1.Manager', 'LullSetIdleSilently', 'b', '',
                          "self.props['org.freedesktop.login1.Manager']['IdleHint'] = args[0]",
                          dbus_interface='org.freedesktop.DBus.Mock')
            obj.LullSetIdleSilently(\(hint ? "True" : "False"), dbus_interface='org.freedesktop.login1.Manager')
            """
        )
    }

    @Test("a session starting or ending is seen, though logind signals no IdleHint for it")
    func sessionsComingAndGoingAreSeen() async throws {
        let bus = try PrivateBus.start()
        defer { bus.shutDown() }
        try await bus.startTemplate("logind", busName: login1, parameters: #"{"IdleHint": true}"#)
        let source = LogindIdleSource(bus: .address(bus.address))
        await source.start()
        #expect(source.current.state != .active)

        for (member, hint) in [("SessionNew", false), ("SessionRemoved", true)] {
            let changes = source.changes()
            try setIdleSilently(bus, hint: hint)
            try bus.python(
                """
                obj = bus.get_object('org.freedesktop.login1', '/org/freedesktop/login1')
                obj.EmitSignal('org.freedesktop.login1.Manager', '\(member)', 'so',
                               ['c1', dbus.ObjectPath('/org/freedesktop/login1/session/c1')],
                               dbus_interface='org.freedesktop.DBus.Mock')
                """
            )
            let (seen, _) = try await firstValue(changes, "the hint after \(member)") { ($0.state == .active) != hint }
            #expect((seen.state == .active) != hint)
        }
        await source.stop()
    }

    @Test("an idle inhibitor is seen through the manager's other properties")
    func anIdleInhibitorIsSeen() async throws {
        let bus = try PrivateBus.start()
        defer { bus.shutDown() }
        try await bus.startTemplate("logind", busName: login1, parameters: #"{"IdleHint": true}"#)
        let source = LogindIdleSource(bus: .address(bus.address))
        await source.start()
        let changes = source.changes()
        try setIdleSilently(bus, hint: false)
        try bus.python(
            """
            obj = bus.get_object('org.freedesktop.login1', '/org/freedesktop/login1')
            obj.AddProperty('org.freedesktop.login1.Manager', 'BlockInhibited', '',
                            dbus_interface='org.freedesktop.DBus.Mock')
            obj.UpdateProperties('org.freedesktop.login1.Manager', {'BlockInhibited': 'idle'},
                                 dbus_interface='org.freedesktop.DBus.Mock')
            """
        )
        let (seen, _) = try await firstValue(changes, "active once the inhibitor is taken") { $0.state == .active }
        #expect(seen == IdleState(.active, source: "logind IdleHint false"))
        await source.stop()
    }

    @Test("what logind changes with no signal at all (a text session's input) is read every interval")
    func silentChangesAreReadEveryInterval() async throws {
        let bus = try PrivateBus.start()
        defer { bus.shutDown() }
        try await bus.startTemplate("logind", busName: login1, parameters: #"{"IdleHint": true}"#)
        let source = LogindIdleSource(bus: .address(bus.address), refreshInterval: .milliseconds(200))
        await source.start()
        let changes = source.changes()
        try setIdleSilently(bus, hint: false)
        let (seen, _) = try await firstValue(changes, "active at the next read") { $0.state == .active }
        #expect(seen.state == .active)
        await source.stop()
    }

    /// A board without a real-time clock boots in the past and steps forward at its first NTP
    /// sync: a realtime idle-since from before the step would put the user's leaving hours back.
    @Test("idle since is placed by logind's monotonic time when it has one")
    func idleSinceFromTheMonotonicClock() {
        let now = (wall: Date(timeIntervalSince1970: 1_800_000_000), monotonicMicros: UInt64(500_000_000))
        var model = LogindIdleSource.Model(present: true, idleHint: true)
        // The user left 120 s ago by the monotonic clock; the realtime value is from before a
        // three-hour step of the wall clock.
        model.idleSinceHint = UInt64((1_800_000_000 - 120 - 3 * 3600) * 1_000_000)
        model.idleSinceHintMonotonic = 380_000_000
        #expect(LogindIdleSource.state(from: model, now: now).since == Date(timeIntervalSince1970: 1_800_000_000 - 120))
        // The clocks read a few microseconds apart again: the same reading, nothing to publish.
        let later = (wall: now.wall.addingTimeInterval(60.000_007), monotonicMicros: now.monotonicMicros + 60_000_000)
        #expect(LogindIdleSource.state(from: model, now: later) == LogindIdleSource.state(from: model, now: now))
        // Without one (older logind, or 0), the realtime value.
        model.idleSinceHintMonotonic = 0
        #expect(
            LogindIdleSource.state(from: model, now: now).since
                == Date(timeIntervalSince1970: 1_800_000_000 - 120 - 3 * 3600)
        )
    }

    @Test("idle since 0 (no session ever active) is idle since always")
    func noSessionsIsIdleSinceAlways() async throws {
        let bus = try PrivateBus.start()
        defer { bus.shutDown() }
        try await bus.startTemplate("logind", busName: login1, parameters: #"{"IdleHint": true}"#)
        let source = LogindIdleSource(bus: .address(bus.address))
        await source.start()
        #expect(source.current == IdleState(.idle(since: .distantPast), source: "logind IdleHint true"))
        await source.stop()
    }

    @Test("without logind idleness is unknown; logind appearing and leaving is followed")
    func withoutLogind() async throws {
        let bus = try PrivateBus.start()
        defer { bus.shutDown() }
        let source = LogindIdleSource(bus: .address(bus.address))
        await source.start()
        #expect(source.current == IdleState(.unknown, source: "logind not found"))

        var changes = source.changes()
        let logind = try await bus.startTemplate("logind", busName: login1)
        let (found, _) = try await firstValue(changes, "logind appeared") { $0.state != .unknown }
        #expect(found == IdleState(.active, source: "logind IdleHint false"))

        changes = source.changes()
        logind.stop()
        let (gone, _) = try await firstValue(changes, "logind left") { $0.state == .unknown }
        #expect(gone == IdleState(.unknown, source: "logind not found"))
        await source.stop()
    }

    @Test("no bus at start: idleness is unknown, saying why, and logind is read once the bus is there")
    func busThatComesLater() async throws {
        guard MockSystemBus.isAvailable else { try skip("needs dbus-daemon and python3-dbusmock") }
        let bus = try MockSystemBus(running: false)
        defer { bus.stop() }
        let source = LogindIdleSource(bus: .address(bus.address), busWaitInterval: .milliseconds(100))
        await source.start()
        #expect(source.current.state == .unknown)
        #expect(source.current.source.hasPrefix("no D-Bus connection"), "\(source.current.source)")

        let changes = source.changes()
        try bus.restart()
        try bus.startTemplate("logind", busName: login1)
        let (found, _) = try await firstValue(changes, "logind read once the bus came", timeout: .seconds(15)) {
            $0.state != .unknown
        }
        #expect(found == IdleState(.active, source: "logind IdleHint false"))
        await source.stop()
    }

    @Test("no bus ever: stop ends the waiting")
    func noBus() async throws {
        let source = LogindIdleSource(
            bus: .address("unix:path=/nonexistent/lull-no-bus"),
            busWaitInterval: .milliseconds(10)
        )
        await source.start()
        #expect(source.current.state == .unknown)
        #expect(source.current.source.hasPrefix("no D-Bus connection"))
        await source.stop()
    }
}
