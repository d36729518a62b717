import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A command left running while the test goes on, its output in files it can be read from
/// meanwhile; for clients that follow the daemon (watch, events --follow).
final class BackgroundCommand {
    private let process = Process()
    private let outPath: String
    private let errPath: String

    init(_ executable: String, _ arguments: [String], in directory: URL) throws {
        let name = "bg-\(UUID().uuidString.prefix(8))"
        outPath = directory.appendingPathComponent(name + ".out").path
        errPath = directory.appendingPathComponent(name + ".err").path
        for path in [outPath, errPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
    }

    var stdout: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// Polls the output until `condition` holds (30 s at most).
    func waitForOutput(_ what: String, _ condition: (String) -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if condition(stdout) { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        // It may have printed and exited between the two checks above.
        if condition(stdout) { return }
        throw TimedOut(description: "never printed \(what); stdout: \(stdout) stderr: \(stderr)")
    }

    /// The exit status, once the command has ended by itself before `deadline`.
    func waitForExit(by deadline: ContinuousClock.Instant) throws -> Int32 {
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                throw TimedOut(description: "still running at the deadline; stdout: \(stdout) stderr: \(stderr)")
            }
            usleep(50_000)
        }
        return process.terminationStatus
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// For a command that cannot be stopped with SIGTERM: Foundation starts its children with
    /// the caller's signal mask, in which SIGTERM may be blocked.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
