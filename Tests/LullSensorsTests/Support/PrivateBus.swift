import Foundation
import LullTestSupport
import Testing

@testable import LullSensors

/// A private D-Bus daemon in a temp directory, with python-dbusmock templates on it. Nothing
/// touches the machine's real buses.
final class PrivateBus: @unchecked Sendable {
    let directory: String
    let address: String
    let python: String
    private var processes: [ChildProcess] = []
    private let lock = NSLock()

    /// A Python that can `import dbusmock`, or nil.
    static let python: String? = {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"] + pathCandidates("python3") {
            guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            if let result = try? run(candidate, ["-c", "import dbusmock, dbus"]), result.status == 0 {
                return candidate
            }
        }
        return nil
    }()

    static let dbusDaemon: String? = findExecutable(
        ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"] + pathCandidates("dbus-daemon")
    )

    /// Why the D-Bus tests cannot run here, or nil when they can.
    static var unavailableReason: String? {
        if dbusDaemon == nil { return "dbus-daemon not installed (apt-get install dbus)" }
        if python == nil {
            return
                "python-dbusmock not importable (apt-get install python3-dbusmock, or pip install python-dbusmock dbus-python)"
        }
        return nil
    }

    private static func pathCandidates(_ name: String) -> [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
    }

    /// Starts a bus daemon, or skips the test loudly when dbus-daemon or dbusmock is missing.
    static func start() throws -> PrivateBus {
        guard let daemon = dbusDaemon, let python else { try skip(unavailableReason ?? "no D-Bus") }
        return try PrivateBus(daemon: daemon, python: python)
    }

    /// Fails the test (rather than hangs) if the daemon does not come up.
    private init(daemon: String, python: String) throws {
        self.python = python
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("lull-bus-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let socket = "\(directory)/bus"
        address = "unix:path=\(socket)"
        let config = MockSystemBus.configuration(listeningOn: address)
        try config.write(toFile: "\(directory)/bus.conf", atomically: true, encoding: .utf8)
        // The daemon lives as long as its stdin: if this test process dies (even by SIGKILL),
        // the shell reads EOF and takes the bus down, and the mocks exit with their bus.
        let shell =
            "\(daemon) --config-file=\(directory)/bus.conf --nofork --nopidfile & pid=$!; read _; kill $pid; wait $pid"
        let process = try ChildProcess(
            "/bin/sh",
            ["-c", shell],
            environment: ProcessInfo.processInfo.environment,
            lifeline: true
        )
        lock.withLock { processes.append(process) }
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: "dbus-daemon socket") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Starts `python3 -m dbusmock --template NAME` on this bus (as its system bus) and waits
    /// until `busName` is owned.
    @discardableResult
    func startTemplate(_ template: String, busName: String, parameters: String? = nil) async throws -> ChildProcess {
        var arguments = ["-m", "dbusmock", "--system", "--template", template]
        if let parameters { arguments += ["-p", parameters] }
        let process = try spawn(python, arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
        try await waitForName(busName)
        return process
    }

    /// Runs a Python snippet with `bus` bound to a dbus-python connection to this bus.
    func python(_ code: String) throws {
        let script = "import dbus, sys\nbus = dbus.bus.BusConnection(sys.argv[1])\n" + code
        let result = try run(python, ["-c", script, address])
        guard result.status == 0 else {
            Issue.record("python setup failed: \(result.output)")
            throw TimedOut(what: "python setup")
        }
    }

    func waitForName(_ name: String) async throws {
        let connection = try await BusConnection.connect(.address(address), name: "test-bus-wait")
        do {
            let deadline = ContinuousClock.now + .seconds(15)
            while true {
                let owned = try await connection.perform { context in
                    try context.call(
                        destination: "org.freedesktop.DBus",
                        path: "/org/freedesktop/DBus",
                        interface: "org.freedesktop.DBus",
                        member: "NameHasOwner",
                        arguments: [.string(name)]
                    ).read().bool ?? false
                }
                if owned { break }
                guard ContinuousClock.now < deadline else { throw TimedOut(what: "\(name) on the private bus") }
                try await Task.sleep(for: .milliseconds(20))
            }
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
    }

    /// A client connection for driving the mocks.
    func client() async throws -> BusConnection {
        try await BusConnection.connect(.address(address), name: "test-bus-client")
    }

    @discardableResult
    private func spawn(
        _ executable: String,
        _ arguments: [String],
        environment extra: [String: String] = [:]
    ) throws -> ChildProcess {
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        let process = try ChildProcess(executable, arguments, environment: environment)
        lock.withLock { processes.append(process) }
        return process
    }

    /// Stops the mocks and the bus daemon, removes the directory.
    func shutDown() {
        let all = lock.withLock { () -> [ChildProcess] in
            defer { processes.removeAll() }
            return processes
        }
        for process in all.reversed() { process.stop() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit {
        shutDown()
    }
}

extension BusConnection {
    /// Sets a property on a mock object (dbusmock emits PropertiesChanged for it).
    func setProperty(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ name: String,
        _ value: DBusValue
    ) async throws {
        try await perform {
            try $0.set(destination: destination, path: path, interface: interface, property: name, value: value)
        }
    }
}
