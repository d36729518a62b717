import Foundation
import LullTestSupport
import Testing

/// Ctrl-C during `lull-bench` ends the lulld it started and removes the run's directory. Before,
/// lulld (in a process group of its own, as Foundation's `Process` starts every child) ran on
/// after the bench had died, in a state directory nothing removed.
@Suite struct BenchInterruptionTests {
    @Test(.timeLimit(.minutes(2)))
    func anInterruptedRunLeavesNoDaemonAndNoDirectory() async throws {
        try await withTemporaryDirectory("bench") { directory in
            let output = directory + "/performance.md"
            try "no markers\n".write(toFile: output, atomically: true, encoding: .utf8)
            let log = directory + "/bench.log"
            let bench = try Self.spawnAsFromATerminal(
                [DaemonProcess.binary("lull-bench"), "--quick", "--only", "submit", "--output", output],
                environment: ["TMPDIR": directory],
                log: log
            )
            var ended: Int32?
            defer { if ended == nil { kill(-bench, SIGKILL) } }

            // The lulld it starts for the section, in the run's directory.
            let scratch = directory + "/lull-bench-run-\(bench)"
            var daemon: pid_t?
            let deadline = ContinuousClock.now + .seconds(60)
            while daemon == nil, ContinuousClock.now < deadline {
                daemon = ProcessTable.descendants(of: bench).first { ProcessTable.name(of: $0) == "lulld" }
                if daemon == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            let lulld = try #require(daemon, "no lulld under lull-bench: \(read(log))")
            defer { if ProcessTable.isAlive(lulld) { kill(lulld, SIGKILL) } }
            #expect(FileManager.default.fileExists(atPath: scratch))

            // What a terminal's Ctrl-C sends: SIGINT to the foreground group, the bench's own.
            kill(-bench, SIGINT)
            let exited = ContinuousClock.now + .seconds(15)
            while ended == nil, ContinuousClock.now < exited {
                var status: Int32 = 0
                if waitpid(bench, &status, WNOHANG) == bench {
                    ended = status
                } else {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let status = try #require(ended, "lull-bench still running 15 s after SIGINT")
            // Exited with 130, not killed by the signal.
            #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 130, "wait status \(status)")
            #expect(!ProcessTable.isAlive(lulld), "lulld \(lulld) outlived the interrupted bench")
            #expect(!FileManager.default.fileExists(atPath: scratch), "\(scratch) left behind")
            #expect(read(log).contains("interrupted: ended what the run started"), "\(read(log))")
        }
    }

    /// Starts `argv` as a shell starts a foreground job: the leader of a process group of its
    /// own, SIGINT and SIGTERM at their defaults and no signal blocked (a test thread's mask, which
    /// a child would inherit, may block them), output to `log`.
    static func spawnAsFromATerminal(_ argv: [String], environment: [String: String], log: String) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        )
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = variables.map { strdup($0) } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        return pid
    }

    private func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}
