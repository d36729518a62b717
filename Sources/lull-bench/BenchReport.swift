import Foundation
import LullTestSupport

/// Formatting shared by every benchmark's table: numbers, verdicts, medians and spreads.
enum BenchReport {
    static func verdict(_ met: Bool) -> String { met ? "met" : "**missed**" }

    static func mib(_ bytes: Int64) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    static func grouped(_ value: Double) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 0
        return formatter.string(from: NSNumber(value: value)) ?? String(Int(value))
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        return values.sorted()[values.count / 2]
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    /// "median (p10–p90)" with the given format, e.g. "%.2f ms".
    static func spread(_ values: [Double], _ format: String) -> String {
        let low = String(format: format, percentile(values, 0.1))
        let high = String(format: format, percentile(values, 0.9))
        return "\(String(format: format, median(values))) (p10–p90 \(low)–\(high))"
    }

    /// The machine line under every table, with the versions that produced it.
    static func machine(quick: Bool, peers: [String] = []) -> String {
        let versions = (["Swift " + swiftVersion, "Lull " + commit] + peers.map { "\($0) \(packageVersion($0))" }).joined(separator: ", ")
        return "Run \(quick ? "with --quick " : "")on \(LullBench.machine()); \(versions)."
    }

    /// The Debian version of an installed package.
    static func packageVersion(_ package: String) -> String {
        let result = try? CommandRunner.run("/usr/bin/dpkg-query", ["-W", "-f", "${Version}", package])
        return result?.status == 0 ? result?.stdout ?? "?" : "?"
    }

    static let swiftVersion: String = {
        let output = (try? CommandRunner.run("/usr/bin/env", ["swift", "--version"]))?.stdout ?? ""
        let words = output.split(separator: " ")
        return words.firstIndex(of: "version").map { String(words[$0 + 1]) } ?? "?"
    }()

    static let commit: String = {
        let result = try? CommandRunner.run("/usr/bin/env", ["git", "rev-parse", "--short", "HEAD"])
        return result?.status == 0 ? result?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?" : "?"
    }()
}

/// Seconds of a closure, on the monotonic clock.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// A per-thread counter of another process (CPU time, voluntary switches) accumulated over a
/// window. Threads come and go (thread pools retire idle workers, taking their counts with
/// them), so `poll` is called often: a thread contributes its last reading minus its first
/// (0 for a thread born in the window). Reading /proc does not wake the process.
final class ThreadCounters {
    private let pid: Int32
    private let read: (String) -> Int64?
    private let first: [String: Int64]
    private var last: [String: Int64]

    init(pid: Int32, _ read: @escaping (_ taskDirectory: String) -> Int64?) {
        self.pid = pid
        self.read = read
        first = Self.snapshot(pid, read)
        last = first
    }

    func poll() {
        last.merge(Self.snapshot(pid, read)) { $1 }
    }

    var total: Int64 {
        last.reduce(0) { $0 + $1.value - (first[$1.key] ?? 0) }
    }

    private static func snapshot(_ pid: Int32, _ read: (String) -> Int64?) -> [String: Int64] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var values: [String: Int64] = [:]
        for tid in tasks { values[tid] = read("/proc/\(pid)/task/\(tid)") }
        return values
    }

    /// CPU time in nanoseconds (first field of `schedstat`).
    static func cpuNanoseconds(pid: Int32) -> ThreadCounters {
        ThreadCounters(pid: pid) { task in
            (try? String(contentsOfFile: task + "/schedstat", encoding: .utf8)).flatMap { Int64($0.split(separator: " ").first ?? "") }
        }
    }

    /// `voluntary_ctxt_switches` from `status`.
    static func voluntarySwitches(pid: Int32) -> ThreadCounters {
        ThreadCounters(pid: pid) { task in
            guard let status = try? String(contentsOfFile: task + "/status", encoding: .utf8) else { return nil }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                return Int64(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "")
            }
            return nil
        }
    }

    static func threadCount(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }

    /// Polls `counters` every 250 ms for `seconds`, calling `tick` (with the seconds elapsed) each time.
    static func watch(_ counters: [ThreadCounters], seconds: Double, tick: (Double) throws -> Void = { _ in }) throws {
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            try tick(Date().timeIntervalSince(start))
            Thread.sleep(forTimeInterval: min(0.25, max(0, seconds - Date().timeIntervalSince(start))))
            counters.forEach { $0.poll() }
        }
    }
}

/// Starts a program with posix_spawn (stdout and stderr to /dev/null) and waits for it: the
/// cheapest way to run a command, so shell-submission timings measure the command itself.
func spawnAndWait(_ argv: [String], environment: [String: String]) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let env = environment.map { "\($0.key)=\($0.value)" }
    var cArgs = argv.map { strdup($0) } + [nil]
    var cEnv = env.map { strdup($0) } + [nil]
    defer {
        cArgs.forEach { free($0) }
        cEnv.forEach { free($0) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, argv[0], &actions, nil, &cArgs, &cEnv)
    guard result == 0 else { throw BenchError("cannot start \(argv[0]): \(String(cString: strerror(result)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status >> 8) & 0xff
}
