import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts a helper server as a process (tuspyserver, `openssl s_server`, a file server in a
/// network namespace) and waits until it serves, failing early if it exits first.
public enum ServerLaunch {
    /// Ready once it accepts connections on its loopback `port`.
    static func start(
        _ name: String,
        executable: String,
        arguments: [String],
        port: Int,
        timeout: Duration,
        input: Pipe? = nil,
        output: FileHandle? = nil
    ) throws -> Process {
        try start(
            name,
            executable: executable,
            arguments: arguments,
            timeout: timeout,
            input: input,
            output: output,
            readiness: "listen on \(port)"
        ) { Socket.accepts(port) }
    }

    /// Ready once `isReady` says so; `readiness` words it for the error.
    public static func start(
        _ name: String,
        executable: String,
        arguments: [String],
        timeout: Duration,
        input: Pipe? = nil,
        output: FileHandle? = nil,
        readiness: String,
        isReady: () throws -> Bool
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let input { process.standardInput = input }
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = output ?? FileHandle.nullDevice
        try process.run()
        do {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if try isReady() { return process }
                guard process.isRunning else {
                    throw ServerProcessError("\(name) exited with \(process.terminationStatus)")
                }
                usleep(50_000)
            }
            throw ServerProcessError("\(name) did not \(readiness) within \(timeout)")
        } catch {
            kill(process)
            throw error
        }
    }

    /// SIGKILL and reap: children of a test process may inherit a signal mask that blocks SIGTERM.
    public static func kill(_ process: Process?) {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
