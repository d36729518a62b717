import Foundation
import LullTestSupport
import Synchronization

/// `examples/python/example.py` as a child process whose JSON lines are read as they come.
final class PythonExample: @unchecked Sendable {
    static let python = "/usr/bin/python3"
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = repository.appendingPathComponent("examples/python/example.py").path

    struct Output {
        var status: Int32
        var lines: [[String: Any]]
        var stderr: String
    }

    private let process = Process()
    private let stderrPipe = Pipe()
    /// Lines read so far; a reader thread appends, the test looks.
    private let lines = LockedLines()
    private let lineArrived = DispatchSemaphore(value: 0)
    private let reader: Thread

    private init() throws {
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = stderrPipe
        let handle = stdout.fileHandleForReading
        let lines = self.lines
        let arrived = lineArrived
        // A dedicated thread blocks on the pipe, so no cooperative thread is held.
        reader = Thread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[pending.index(after: newline)...])
                    lines.withLock { $0.append(line) }
                    arrived.signal()
                }
            }
            arrived.signal()
        }
    }

    static func start(_ arguments: [String]) throws -> PythonExample {
        let example = try PythonExample()
        example.process.executableURL = URL(fileURLWithPath: python)
        example.process.arguments = [script] + arguments
        try example.process.run()
        example.reader.start()
        return example
    }

    private static func parse(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// Blocks until a printed JSON line satisfies `predicate` (or the deadline passes).
    func waitForLine(timeout: Duration, _ predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        var checked = 0
        while ContinuousClock.now < deadline {
            let current = lines.withLock { $0 }
            for line in current[checked...] {
                if let object = Self.parse(line), predicate(object) { return object }
            }
            checked = current.count
            if !process.isRunning && checked == lines.withLock({ $0.count }) { break }
            _ = lineArrived.wait(timeout: .now() + .milliseconds(200))
        }
        throw TimedOut(
            description: "example.py printed no matching line; it printed:\n"
                + lines.withLock { $0 }.joined(separator: "\n")
        )
    }

    /// Waits for the script to exit and returns everything it printed.
    func finish(timeout: Duration) throws -> Output {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                terminate()
                throw TimedOut(
                    description: "example.py did not finish; it printed:\n"
                        + lines.withLock { $0 }.joined(separator: "\n")
                )
            }
            _ = lineArrived.wait(timeout: .now() + .milliseconds(200))
        }
        process.waitUntilExit()
        while !reader.isFinished && ContinuousClock.now < deadline {
            _ = lineArrived.wait(timeout: .now() + .milliseconds(50))
        }
        let stderr = String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Output(
            status: process.terminationStatus,
            lines: lines.withLock { $0 }.compactMap(Self.parse),
            stderr: stderr
        )
    }

    func terminate() {
        if process.isRunning { process.terminate() }
    }
}

/// Lines shared between the reader thread and the test.
final class LockedLines: Sendable {
    private let lines = Mutex<[String]>([])

    func withLock<T>(_ body: (inout [String]) -> T) -> T {
        lines.withLock { body(&$0) }
    }
}
