#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Starts a helper server as a process (tuspyserver, `openssl s_server`) and waits until it
/// accepts connections on its loopback port, failing early if it exits first.
enum ServerLaunch {
    static func start(
        _ name: String, executable: String, arguments: [String], port: Int, timeout: Duration,
        input: Pipe? = nil
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let input { process.standardInput = input }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if Socket.accepts(port) { return process }
            guard process.isRunning else { throw ServerProcessError("\(name) exited with \(process.terminationStatus)") }
            usleep(50_000)
        }
        Glibc.kill(process.processIdentifier, SIGKILL)
        throw ServerProcessError("\(name) did not listen on \(port) within \(timeout)")
    }

    /// SIGKILL and reap: children of a test process may inherit a signal mask that blocks SIGTERM.
    static func kill(_ process: Process?) {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
