import Foundation
import LullTestSupport
import Testing

@testable import LullTransfer

#if canImport(Glibc)
import Glibc
#endif

/// A job's cgroup signals only its own processes: a pid read from `cgroup.procs` that belongs
/// to another process by the time the signal goes (it exited and its pid was taken) is left
/// alone. Real processes in a real cgroup v2 directory.
@Suite(.enabled(if: DelegatedSubtree.available, "needs root and a cgroup v2 hierarchy"), .timeLimit(.minutes(1)))
struct JobCgroupSignalTests {
    @Test func aSignalReachesOnlyTheProcessesInTheCgroup() throws {
        let subtree = try DelegatedSubtree()
        defer { subtree.remove() }
        let group = JobCgroup(directory: subtree.directory, path: subtree.path)
        let inside = try Sleeper(in: group)
        let outside = try Sleeper(in: nil)
        defer { outside.end() }
        #expect(group.holds(inside.pid) && !group.holds(outside.pid))

        // As if `outside` had taken the pid of a member between the read and the signal.
        group.signal(SIGTERM, to: [outside.pid, inside.pid])

        #expect(inside.awaitExit() == SIGTERM, "the member was not signalled")
        #expect(outside.isRunning, "a process outside the cgroup was signalled")
    }

    /// The way a stop ends everything before Linux 5.14 (no `cgroup.kill`), here with a command
    /// that keeps forking.
    @Test func killingOneByOneEndsACommandThatKeepsForking() throws {
        let subtree = try DelegatedSubtree()
        defer { subtree.remove() }
        let group = JobCgroup(directory: subtree.directory, path: subtree.path)
        let forking = try Sleeper(in: group, script: "while :; do sleep 30 & sleep 0.01; done")
        let outside = try Sleeper(in: nil)
        defer { outside.end() }
        var waited = 0
        while group.processes().count < 5, waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(group.processes().count >= 5, "the command did not fork")

        group.killOneByOne()

        #expect(group.awaitEmpty(seconds: 2), "left in the cgroup: \(group.processes())")
        #expect(forking.awaitExit() == SIGKILL)
        #expect(outside.isRunning)
    }
}

/// A shell started for a test, moved into `group` before it runs its script when one is given.
private struct Sleeper {
    let pid: Int32

    init(in group: JobCgroup?, script: String = "exec sleep 300") throws {
        // The shell waits for its move into the cgroup to be done before running the script.
        let gate = group.map { "echo 0 > \($0.directory)/cgroup.procs || exit 9; " } ?? ""
        var pid: Int32 = 0
        let argv = ["/bin/sh", "-c", gate + script]
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        // Default dispositions and no blocked signals, whatever the test process has.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let status = posix_spawn(&pid, argv[0], nil, &attributes, &cArgs, environ)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        self.pid = pid
        if let group {
            var waited = 0
            while !group.holds(pid), waited < 500 {
                usleep(10_000)
                waited += 1
            }
            try #require(group.holds(pid), "the shell did not move into \(group.directory)")
        }
    }

    /// Alive and not a zombie.
    var isRunning: Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        return state != nil && state != "Z"
    }

    /// Reaps it (bounded: 5 s) and returns the signal that ended it, 0 for an exit, -1 if it
    /// did not end.
    func awaitExit() -> Int32 {
        var status: Int32 = 0
        for _ in 0..<500 {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return status & 0x7f }
            usleep(10_000)
        }
        return -1
    }

    func end() {
        kill(pid, SIGKILL)
        _ = awaitExit()
    }
}
