import Foundation
import LullClient

#if canImport(Glibc)
import Glibc
#endif

/// A real `lulld` process for tests: its own state directory and socket, readiness taken from
/// the sd_notify protocol (a datagram socket in `NOTIFY_SOCKET`), never from sleeping.
public final class DaemonProcess: @unchecked Sendable {
    public let directory: URL
    public let socketPath: String
    public let stateDirectory: String
    public private(set) var process: Process?
    public private(set) var logPath: String
    private let extraArguments: [String]
    private let launcher: [String]
    private let executable: String
    private let environment: [String: String]

    /// The directory holding the built products (lulld, lullctl) next to the running test binary.
    public static var productsDirectory: URL {
        let exe = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
        )
        var directory = exe.deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("lulld").path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        return exe.deletingLastPathComponent()
    }

    public static func binary(_ name: String) -> String {
        productsDirectory.appendingPathComponent(name).path
    }

    /// Pressure files the daemon reads instead of the machine's (nil: the real `/proc`).
    public let proc: ProcFixture?

    /// Prepares (does not start) a daemon in a fresh temporary directory, readable by other uids
    /// so setpriv-ed clients can reach the socket.
    ///
    /// - Parameter realPressure: read the machine's PSI. By default the daemon reads a
    ///   `ProcFixture` at zero pressure, so a busy test machine does not hold jobs of classes
    ///   with pressure limits; tests about pressure script it through `proc`.
    ///   - launcher: a command prefix that execs lulld, e.g. `NetworkNamespace.launcher`.
    ///   - environment: variables added to the test's own (e.g. `HTTP_PROXY`).
    ///   - executable: the lulld to run, when not the build's own (a copy made for a profiler).
    public init(
        config: String? = nil,
        arguments: [String] = [],
        realPressure: Bool = false,
        launcher: [String] = [],
        environment: [String: String] = [:],
        executable: String? = nil
    ) throws {
        self.launcher = launcher
        self.executable = executable ?? Self.binary("lulld")
        self.environment = environment
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-test-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(directory.path, 0o755)
        stateDirectory = directory.appendingPathComponent("state").path
        socketPath = directory.appendingPathComponent("run/lull.sock").path
        logPath = directory.appendingPathComponent("lulld.log").path
        var arguments = arguments
        var config = config
        if realPressure {
            proc = nil
        } else {
            let fixture = try ProcFixture(in: directory)
            proc = fixture
            config = Self.setting(section: "sensors", key: "proc_root", to: "\"\(fixture.root)\"", in: config ?? "")
        }
        if let config {
            let path = directory.appendingPathComponent("lull.toml").path
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            arguments += ["--config", path]
        }
        extraArguments = arguments
    }

    /// Adds `key = value` to `[section]` of a TOML text, creating the section when missing;
    /// a key the text sets already is left alone.
    static func setting(section: String, key: String, to value: String, in toml: String) -> String {
        var lines = toml.components(separatedBy: "\n")
        guard let header = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "[\(section)]" }) else {
            return toml + (toml.isEmpty || toml.hasSuffix("\n") ? "" : "\n") + "[\(section)]\n\(key) = \(value)\n"
        }
        let sectionEnd =
            lines[(header + 1)...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("[") })
            ?? lines.endIndex
        if lines[(header + 1)..<sectionEnd].contains(where: {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + " ")
                || $0.trimmingCharacters(in: .whitespaces).hasPrefix(key + "=")
        }) {
            return toml
        }
        lines.insert("\(key) = \(value)", at: header + 1)
        return lines.joined(separator: "\n")
    }

    /// What lulld told the service manager during its last start, up to READY=1: one string per
    /// sd_notify message, in order.
    public private(set) var notifications: [String] = []

    /// Starts lulld and returns once it has said READY=1 (or throws with its log if it exits first).
    public func start(timeout: Duration = .seconds(30)) throws {
        let notify = try NotifySocket(
            path: directory.appendingPathComponent("notify-\(UUID().uuidString.prefix(6)).sock").path
        )
        defer { notify.close() }
        let process = Process()
        let command = launcher + [executable, "--state-dir", stateDirectory, "--socket", socketPath] + extraArguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment.merge(self.environment) { _, added in added }
        environment["NOTIFY_SOCKET"] = notify.path
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let logFile = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        logFile.seekToEndOfFile()
        process.standardOutput = logFile
        process.standardError = logFile
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + timeout
        notifications = []
        while ContinuousClock.now < deadline {
            if let message = notify.receive(timeoutMilliseconds: 100) {
                notifications.append(message)
                if message.contains("READY=1") { return }
            }
            if !process.isRunning {
                throw DaemonProcessError.exited(status: process.terminationStatus, log: self.log())
            }
        }
        throw DaemonProcessError.notReady(log: self.log())
    }

    public var pid: Int32 { process?.processIdentifier ?? 0 }

    /// The config file the daemon was started with, if any.
    public var configPath: String { directory.appendingPathComponent("lull.toml").path }

    /// Sends SIGHUP: the daemon reads its config again.
    public func reload() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGHUP)
    }

    /// SIGTERM, then waits for a clean exit.
    @discardableResult
    public func stop() -> Int32 {
        guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL: the crash case.
    public func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    public func remove() {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

public enum DaemonProcessError: Error, CustomStringConvertible {
    case exited(status: Int32, log: String)
    case notReady(log: String)

    public var description: String {
        switch self {
        case .exited(let status, let log): "lulld exited with status \(status) before READY:\n\(log)"
        case .notReady(let log): "lulld did not send READY=1 in time:\n\(log)"
        }
    }
}

/// The receiving end of the sd_notify protocol.
final class NotifySocket {
    let path: String
    private let fd: CInt

    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = try UnixSocketStream.address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    func receive(timeoutMilliseconds: Int32) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    func close() {
        Glibc.close(fd)
        unlink(path)
    }
}
