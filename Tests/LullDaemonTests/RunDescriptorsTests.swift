import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a command lulld starts gets of lulld's descriptors: none but 0–2, and the soft open-file
/// limit lulld was started with.
@Suite struct RunDescriptorsTests {
    /// lulld raises its own soft limit to the hard one. With that, a program that uses `select`
    /// past 1024 descriptors corrupts its stack, and one that closes every descriptor up to the
    /// limit before it starts (old daemons) makes a million system calls.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/prlimit"), "needs prlimit"))
    func aCommandStartsWithTheSoftLimitLulldWasStartedWith() async throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let hard = min(UInt64(limit.rlim_max), 65_536)
        try #require(hard > 512, "the hard limit here is \(hard)")
        let daemon = try DaemonProcess(
            config: SpawnPaths.config,
            launcher: ["/usr/bin/prlimit", "--nofile=512:\(hard)", "--"]
        )
        defer { daemon.remove() }
        try daemon.start()
        let limits = try String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)
        let own = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
        #expect(
            own?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first == "\(hard)",
            "\(own ?? "")"
        )
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let argv = ["sh", "-c", "ulimit -Sn; ulimit -Hn"]
        for (path, output) in try await SpawnPaths.outputs(of: argv, daemon: daemon, client: client) {
            #expect(output == "512\n\(hard)\n", "\(path)")
        }
    }

    /// Before Linux 5.9 there is no close_range, so the forked child closes lulld's descriptors
    /// one by one; without that, one lulld's parent left open (not close-on-exec) reached the
    /// command. The launcher fails close_range with ENOSYS and leaves descriptor 900 open.
    @Test func noDescriptorOfLulldsReachesACommandWithoutCloseRange() async throws {
        #if !arch(x86_64)
        return  // The seccomp filter uses x86_64's system call numbers.
        #endif
        let launcher = PythonExample.repository.appendingPathComponent("Tests/Fixtures/without_close_range.py").path
        let daemon = try DaemonProcess(config: SpawnPaths.config, launcher: ["/usr/bin/python3", launcher])
        defer { daemon.remove() }
        try daemon.start()
        #expect(
            FileManager.default.fileExists(atPath: "/proc/\(daemon.pid)/fd/900"),
            "lulld was not given descriptor 900"
        )
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let argv = ["sh", "-c", "ls /proc/$$/fd"]
        for (path, output) in try await SpawnPaths.outputs(of: argv, daemon: daemon, client: client) {
            #expect(output == "0\n1\n2\n", "\(path)")
        }
    }
}
