import Foundation

/// A per-thread counter of another process (CPU time, voluntary switches) accumulated over a
/// window. Threads come and go (thread pools retire idle workers, taking their counts with
/// them), so `poll` is called often: a thread contributes its last reading minus its first
/// (all of it for a thread born in the window). Reading /proc does not wake the process.
public final class ThreadCounters {
    private let pid: Int32
    private let read: (String) -> Int64?
    private let first: [String: Int64]
    private var last: [String: Int64]

    public init(pid: Int32, _ read: @escaping (_ taskDirectory: String) -> Int64?) {
        self.pid = pid
        self.read = read
        first = Self.snapshot(pid, read)
        last = first
    }

    public func poll() {
        last.merge(Self.snapshot(pid, read)) { $1 }
    }

    public var total: Int64 {
        last.reduce(0) { $0 + $1.value - (first[$1.key] ?? 0) }
    }

    private static func snapshot(_ pid: Int32, _ read: (String) -> Int64?) -> [String: Int64] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var values: [String: Int64] = [:]
        for tid in tasks { values[tid] = read("/proc/\(pid)/task/\(tid)") }
        return values
    }

    /// CPU time in nanoseconds (first field of `schedstat`).
    public static func cpuNanoseconds(pid: Int32) -> ThreadCounters {
        ThreadCounters(pid: pid) { task in
            (try? String(contentsOfFile: task + "/schedstat", encoding: .utf8)).flatMap {
                Int64($0.split(separator: " ").first ?? "")
            }
        }
    }

    /// `voluntary_ctxt_switches` from `status`.
    public static func voluntarySwitches(pid: Int32) -> ThreadCounters {
        ThreadCounters(pid: pid) { task in
            guard let status = try? String(contentsOfFile: task + "/status", encoding: .utf8) else { return nil }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                return Int64(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "")
            }
            return nil
        }
    }

    public static func threadCount(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }

    /// Polls `counters` every 250 ms for `window`, suspending rather than blocking (for tests).
    public static func watch(_ counters: [ThreadCounters], for window: Duration) async throws {
        let end = ContinuousClock.now + window
        while ContinuousClock.now < end {
            try await Task.sleep(for: min(.milliseconds(250), end - ContinuousClock.now))
            counters.forEach { $0.poll() }
        }
    }

    /// Polls `counters` every 250 ms for `seconds`, calling `tick` (with the seconds elapsed) each time.
    public static func watch(
        _ counters: [ThreadCounters],
        seconds: Double,
        tick: (Double) throws -> Void = { _ in }
    ) throws {
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            try tick(Date().timeIntervalSince(start))
            Thread.sleep(forTimeInterval: min(0.25, max(0, seconds - Date().timeIntervalSince(start))))
            counters.forEach { $0.poll() }
        }
    }
}
