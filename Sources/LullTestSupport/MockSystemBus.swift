import Foundation

/// A private D-Bus daemon with python-dbusmock's templates on it (UPower, NetworkManager), driven
/// through dbus-python: the machine's real buses are never touched. For daemon-level tests.
public final class MockSystemBus: @unchecked Sendable {
    public static let python = "/usr/bin/python3"
    public let directory: String
    public let address: String
    private var processes: [Process] = []
    private var templates: [(template: String, busName: String, parameters: String?)] = []

    /// Whether dbus-daemon and Debian's python3-dbusmock are installed.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && (try? CommandRunner.run(python, ["-c", "import dbusmock, dbus"]).status) == 0
    }

    /// - Parameter running: false leaves the bus down until `restart()` (a bus that comes after
    ///   its client).
    public init(running: Bool = true) throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("lull-mockbus-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        address = "unix:path=\(directory)/bus"
        let config = Self.configuration(listeningOn: address)
        try config.write(toFile: "\(directory)/bus.conf", atomically: true, encoding: .utf8)
        if running { try startBus() }
    }

    private func startBus() throws {
        try spawn("/usr/bin/dbus-daemon", ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"])
        try waitUntil("the bus socket") { FileManager.default.fileExists(atPath: "\(self.directory)/bus") }
    }

    /// The bus goes away (every client is disconnected) and comes back at the same address, with
    /// the templates started again, fresh: a dbus-broker restart, as clients see it.
    public func restart() throws {
        killAll()
        try? FileManager.default.removeItem(atPath: "\(directory)/bus")
        try startBus()
        let started = templates
        templates = []
        for started in started {
            try startTemplate(started.template, busName: started.busName, parameters: started.parameters)
        }
    }

    /// A dbus-daemon configuration for a private test bus at `address`: anyone may own any name
    /// and talk to anyone, so dbusmock can stand in for the system services.
    public static func configuration(listeningOn address: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>\(address)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }

    /// Starts a dbusmock template as if on the system bus and waits until it owns `busName`.
    public func startTemplate(_ template: String, busName: String, parameters: String? = nil) throws {
        var arguments = ["-m", "dbusmock", "--system", "--template", template]
        if let parameters { arguments += ["-p", parameters] }
        try spawn(Self.python, arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
        templates.append((template, busName, parameters))
        try waitUntil("\(busName) on the bus") {
            (try? self.python("sys.exit(0 if bus.name_has_owner('\(busName)') else 1)").status) == 0
        }
    }

    /// Sets a property on a mock object; dbusmock emits PropertiesChanged.
    public func setProperty(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ name: String,
        _ value: String
    ) throws {
        let result = try python(
            """
            obj = bus.get_object('\(destination)', '\(path)')
            obj.Set('\(interface)', '\(name)', \(value), dbus_interface='org.freedesktop.DBus.Properties')
            """
        )
        guard result.status == 0 else { throw MockBusError("setting \(name) failed: \(result.stderr)") }
    }

    @discardableResult
    public func python(_ code: String) throws -> CommandResult {
        try CommandRunner.run(
            Self.python,
            ["-c", "import dbus, sys\nbus = dbus.bus.BusConnection(sys.argv[1])\n" + code, address]
        )
    }

    /// SIGKILL: dbusmock's GLib main loop does not act on SIGTERM.
    public func stop() {
        killAll()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func killAll() {
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        processes = []
    }

    private func spawn(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes.append(process)
    }

    private func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw MockBusError("timed out waiting for \(what)") }
            usleep(20_000)
        }
    }
}

public struct MockBusError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
