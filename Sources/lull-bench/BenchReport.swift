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

    /// Nearest rank: the smallest value with at least `p` of the values at or below it.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((Double(sorted.count) * p).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    /// "median (p10–p90)" with the given format, e.g. "%.2f ms".
    static func spread(_ values: [Double], _ format: String) -> String {
        let low = String(format: format, percentile(values, 0.1))
        let high = String(format: format, percentile(values, 0.9))
        return "\(String(format: format, median(values))) (p10–p90 \(low)–\(high))"
    }

    /// The machine line under every table, with the versions that produced it.
    static func machine(quick: Bool, peers: [String] = []) -> String {
        let versions = (["Swift " + swiftVersion, "Lull " + commit] + peers.map { "\($0) \(packageVersion($0))" })
            .joined(separator: ", ")
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

    /// The commit measured; a tree with uncommitted changes to tracked files says so, since the
    /// figures are then of code no commit holds. The tables a run writes (docs/performance.md,
    /// from the top of the work tree wherever the run starts) are not code: a second section run
    /// after a first is still of the commit.
    static let commit: String = {
        let result = try? CommandRunner.run("/usr/bin/env", ["git", "rev-parse", "--short", "HEAD"])
        guard result?.status == 0, let head = result?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) else {
            return "?"
        }
        let status = try? CommandRunner.run(
            "/usr/bin/env",
            [
                "git", "status", "--porcelain", "--untracked-files=no", "--", ":/", ":(top,exclude)docs/performance.md",
            ]
        )
        guard let status, status.status == 0 else { return head }
        return status.stdout.isEmpty ? head : head + " with uncommitted changes"
    }()
}

/// Seconds of a closure, on the monotonic clock.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
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
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else {
            throw BenchError("cannot wait for \(argv[0]): \(String(cString: strerror(errno)))")
        }
    }
    // A command killed by a signal is no success to time: 128 + the signal, as a shell says.
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
}
