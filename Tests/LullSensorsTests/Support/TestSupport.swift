import Foundation
import Testing

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

struct StreamEnded: Error, CustomStringConvertible {
    var what: String
    var description: String { "stream ended while waiting for \(what)" }
}

/// The first element of `stream` that satisfies `predicate`, and how long after `since` it
/// arrived. Fails after `timeout` (generous: these are bounds, not expectations).
func firstValue<T: Sendable>(
    _ stream: AsyncStream<T>,
    _ what: String,
    since start: ContinuousClock.Instant = .now,
    timeout: Duration = .seconds(10),
    where predicate: @escaping @Sendable (T) -> Bool
) async throws -> (value: T, latency: Duration) {
    try await withThrowingTaskGroup(of: (T, Duration).self) { group in
        group.addTask {
            for await value in stream where predicate(value) {
                return (value, ContinuousClock.now - start)
            }
            throw StreamEnded(what: what)
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimedOut(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Writes `files` (relative path → content) under `root`, creating directories.
func writeTree(_ root: String, _ files: [String: String]) {
    for (relative, content) in files {
        let url = URL(fileURLWithPath: root).appendingPathComponent(relative)
        try! FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! content.write(to: url, atomically: false, encoding: .utf8)
    }
}

/// Runs a program to completion; returns its exit status and combined output.
@discardableResult
func run(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String]? = nil
) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The first of `candidates` that exists and is executable.
func findExecutable(_ candidates: [String]) -> String? {
    candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

func skip(_ reason: String) throws -> Never {
    print("⚠️  SKIPPED: \(reason)")
    try Test.cancel(Comment(rawValue: reason))
}
