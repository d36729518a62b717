import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import LullTransfer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The process host where a cgroup v2 subtree is delegated to lulld: lulld is started in a
/// cgroup of its own (as a container or supervisor would start it), and each command runs in
/// `jobs/job-ID` below it. The cgroup holds what leaves the process group, so stops reach it,
/// the kernel counts its CPU, and a pause freezes it.
@Suite(.enabled(if: DelegatedSubtree.available, "needs root and a cgroup v2 hierarchy"), .timeLimit(.minutes(2)))
struct RunCgroupTests {
    @Test func aCommandsCgroupHoldsWhatLeftItsProcessGroupAndGoesWithIt() async throws {
        let subtree = try DelegatedSubtree()
        defer { subtree.remove() }
        try await withDaemon(launcher: subtree.launcher) { daemon, client in
            let escaped = daemon.directory.appendingPathComponent("escaped.pid").path
            let job = try await client.submit(
                JobSubmission(
                    kind: .run,
                    url: "",
                    argv: [
                        "sh", "-c",
                        "grep '^0::' /proc/self/cgroup; setsid sh -c 'echo $$ > \(escaped); exec sleep 300' & sleep 0.3; echo done",
                    ]
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            let path = subtree.path + "/jobs/job-\(job.id)"
            #expect(done.result?.cgroup == path)
            #expect(done.result?.outputTail?.contains("0::\(path)\n") == true, "\(done.result?.outputTail ?? "")")
            // The sleep left the command's process group; the cgroup still held it, and it was
            // killed with the command.
            let pid = try #require(Int32((try? String(contentsOfFile: escaped, encoding: .utf8))?.trimmed ?? ""))
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?
                .split(separator: ")").last?.split(separator: " ").first
            #expect(state == nil || state == "Z", "the escaped sleep \(pid) outlived the job (state \(state ?? ""))")
            #expect(!FileManager.default.fileExists(atPath: subtree.directory + "/jobs/job-\(job.id)"))
            let shown = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["show", String(job.id), "--socket", daemon.socketPath]
            )
            #expect(shown.stdout.contains("cgroup \(path)"), "\(shown.stdout)")
        }
    }

    /// A process the command started and never reaped (a double fork): rusage cannot see its
    /// CPU, nor can readings of the process group it left; the cgroup can.
    @Test func cpuOfProcessesTheCommandDidNotReapIsCounted() async throws {
        let subtree = try DelegatedSubtree()
        defer { subtree.remove() }
        func burnUnreaped(_ client: LullClient, _ directory: URL) async throws -> Double {
            let flag = directory.appendingPathComponent("burnt-\(UUID().uuidString.prefix(6))").path
            let burn = "import time\nt=time.process_time()\nwhile time.process_time()-t<1: pass\nopen('\(flag)','w')"
            let job = try await client.submit(
                JobSubmission(
                    kind: .run,
                    url: "",
                    argv: [
                        "sh", "-c", "(setsid python3 -c \"$0\" &); while [ ! -e \(flag) ]; do sleep 0.05; done", burn,
                    ]
                )
            )
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            return try #require(done.result?.cpuSeconds)
        }
        var withoutCgroup = 0.0
        try await withDaemon { daemon, client in withoutCgroup = try await burnUnreaped(client, daemon.directory) }
        var withCgroup = 0.0
        try await withDaemon(launcher: subtree.launcher) { daemon, client in
            withCgroup = try await burnUnreaped(client, daemon.directory)
        }
        print(
            "cpu_seconds of a 1 s burn the command did not reap: \(withoutCgroup) in a process group, \(withCgroup) in a cgroup"
        )
        #expect(withoutCgroup < 0.5, "rusage and the group's readings should miss it")
        #expect(withCgroup >= 0.8)
    }

    /// kill -9 of lulld leaves the command's cgroup running, with a process that left the
    /// process group (which `LeftoverGroup` alone would miss); the job's next attempt ends both
    /// before it starts.
    @Test func whatACrashedDaemonLeftInTheCgroupIsEndedBeforeTheJobRunsAgain() async throws {
        let subtree = try DelegatedSubtree()
        defer { subtree.remove() }
        try await withDaemon(launcher: subtree.launcher) { daemon, client in
            let pids = daemon.directory.appendingPathComponent("pids").path
            let job = try await client.submit(
                JobSubmission(
                    kind: .run,
                    url: "",
                    argv: ["sh", "-c", "setsid sleep 300 & echo $! >> \(pids); echo $$ >> \(pids); sleep 300"]
                )
            )
            @Sendable func recorded() -> [Int32] {
                ((try? String(contentsOfFile: pids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                    Int32($0)
                }
            }
            try await withTimeout(.seconds(10), "the first attempt's pids") {
                while recorded().count < 2 { try await Task.sleep(for: .milliseconds(25)) }
            }
            let first = recorded()
            daemon.kill()
            #expect(first.allSatisfy { subtree.isRunning($0) }, "kill -9 of lulld leaves the command running")
            try daemon.start()
            try await withTimeout(.seconds(20), "the second attempt") {
                while recorded().count < 4 { try await Task.sleep(for: .milliseconds(25)) }
            }
            #expect(first.allSatisfy { !subtree.isRunning($0) }, "the first attempt's processes were ended")
            #expect(recorded().dropFirst(2).allSatisfy { subtree.isRunning($0) })
            #expect(try await client.cancel(job.id).state == .cancelled)
        }
    }

    /// This machine's unified hierarchy delegates no controller (its v1 hierarchies hold them
    /// all): the commands get cgroups, and memory_max stays refused.
    @Test func limitsWithoutTheirControllerAreRefusedNamingIt() async throws {
        let subtree = try DelegatedSubtree()
        defer { subtree.remove() }
        let controllers = subtree.read(subtree.directory + "/cgroup.controllers")
        try await withDaemon(launcher: subtree.launcher) { daemon, client in
            let refused = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["submit", "run", "--memory-max", "64M", "--socket", daemon.socketPath, "--", "true"]
            )
            if controllers.contains("memory") {
                #expect(refused.status == 0, "\(refused.stderr)")
            } else {
                #expect(refused.status != 0)
                #expect(refused.stderr.contains("memory_max needs"), "\(refused.stderr)")
            }
            #expect(daemon.log().contains("run jobs: each command in a cgroup of its own under"), "\(daemon.log())")
        }
    }

    /// A job cancelled after a crash, before another attempt could end what the crashed lulld
    /// left in its cgroup: the cancel ends it (a setsid child included) and removes the cgroup.
    @Test func cancellingAJobACrashedDaemonLeftRunningEndsItsCgroup() async throws {
        let subtree = try DelegatedSubtree()
        defer { subtree.remove() }
        try await withDaemon(launcher: subtree.launcher) { daemon, client in
            let pids = daemon.directory.appendingPathComponent("pids").path
            let job = try await client.submit(
                JobSubmission(kind: .run, url: "", argv: ["sh", "-c", "setsid sleep 300 & echo $! > \(pids); wait"])
            )
            let escaped = try await withTimeout(.seconds(10), "the escaped sleep's pid") { () -> Int32 in
                while true {
                    if let pid = Int32((try? String(contentsOfFile: pids, encoding: .utf8))?.trimmed ?? "") {
                        return pid
                    }
                    try await Task.sleep(for: .milliseconds(25))
                }
            }
            daemon.kill()
            // Started again with every slot closed, so no attempt runs before the cancel.
            try "[classes.default]\nmax_concurrent = 0\n".write(
                toFile: daemon.configPath,
                atomically: true,
                encoding: .utf8
            )
            try daemon.start()
            #expect(subtree.isRunning(escaped), "kill -9 of lulld leaves the command running")
            #expect(try await client.cancel(job.id).state == .cancelled)
            try await withTimeout(.seconds(10), "the leftover to be ended") {
                while subtree.isRunning(escaped) { try await Task.sleep(for: .milliseconds(25)) }
            }
            #expect(!FileManager.default.fileExists(atPath: subtree.directory + "/jobs/job-\(job.id)"))
        }
    }

    /// A cgroup shared with another process is not lulld's own; a lulld started in the leaf an
    /// earlier run moved it to takes the leaf's parent as its cgroup.
    @Test func aSharedCgroupIsRefusedAndTheLeafIsTakenForItsParent() async throws {
        let subtree = try DelegatedSubtree()
        defer { subtree.remove() }
        let squatter = Process()
        squatter.executableURL = URL(fileURLWithPath: "/bin/sh")
        squatter.arguments = ["-c", "echo 0 > \(subtree.directory)/cgroup.procs && exec sleep 60"]
        try squatter.run()
        try await withTimeout(.seconds(5), "the other process in the cgroup") {
            while !subtree.read(subtree.directory + "/cgroup.procs").contains("\(squatter.processIdentifier)") {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await withDaemon(launcher: subtree.launcher) { daemon, _ in
            #expect(
                daemon.log().contains("also holds other processes (\(squatter.processIdentifier)"),
                "\(daemon.log())"
            )
        }
        kill(squatter.processIdentifier, SIGKILL)
        squatter.waitUntilExit()

        let leaf = subtree.directory + "/lulld"
        try FileManager.default.createDirectory(atPath: leaf, withIntermediateDirectories: true)
        let inLeaf = ["/bin/sh", "-c", "echo 0 > \(leaf)/cgroup.procs && exec \"$@\"", "sh"]
        try await withDaemon(launcher: inLeaf) { daemon, client in
            #expect(daemon.log().contains("under \(subtree.directory)/jobs"), "\(daemon.log())")
            let job = try await client.submit(JobSubmission(kind: .run, url: "", argv: ["true"]))
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.result?.cgroup == subtree.path + "/jobs/job-\(job.id)")
        }
    }

    @Test func pauseFreezesTheCgroupAndResumeThawsIt() async throws {
        let subtree = try DelegatedSubtree()
        defer { subtree.remove() }
        try await withDaemon(launcher: subtree.launcher) { daemon, client in
            let job = try await client.submit(
                JobSubmission(kind: .run, url: "", argv: ["sh", "-c", "setsid sh -c 'while :; do :; done' & wait"])
            )
            let group = subtree.directory + "/jobs/job-\(job.id)"
            try await withTimeout(.seconds(10), "the command's cgroup to burn CPU") {
                while subtree.cpuMicroseconds(group) < 200_000 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(try await client.pause(job.id).state == .paused)
            // The kernel freezes the cgroup's tasks asynchronously; `frozen 1` says it is done.
            try await withTimeout(.seconds(5), "the cgroup to be frozen") {
                while !subtree.read(group + "/cgroup.events").contains("frozen 1") {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let frozenAt = subtree.cpuMicroseconds(group)
            try await Task.sleep(for: .milliseconds(800))
            #expect(subtree.cpuMicroseconds(group) == frozenAt, "no CPU while paused, the escaped loop included")
            #expect(try await client.resume(job.id).state == .running)
            try await Task.sleep(for: .milliseconds(500))
            #expect(subtree.cpuMicroseconds(group) > frozenAt + 100_000, "the same processes run again")
            #expect(try await client.cancel(job.id).state == .cancelled)
            try await withTimeout(.seconds(15), "the cancelled command's cgroup to go") {
                while FileManager.default.fileExists(atPath: group) { try await Task.sleep(for: .milliseconds(50)) }
            }
        }
    }
}

/// A cgroup made for one test's lulld, as a supervisor would delegate one; removed with all
/// it holds.
struct DelegatedSubtree {
    static var available: Bool {
        geteuid() == 0
            && DelegatedCgroups.mountPoint(proc: "/proc").map { access($0 + "/cgroup.procs", W_OK) == 0 }
                == true
    }

    let path: String
    let directory: String

    init() throws {
        let mount = try #require(DelegatedCgroups.mountPoint(proc: "/proc"))
        path = "/lull-test-\(UUID().uuidString.prefix(8))"
        directory = mount + path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    }

    /// A prefix that moves the shell into the cgroup, then becomes lulld.
    var launcher: [String] { ["/bin/sh", "-c", "echo 0 > \(directory)/cgroup.procs && exec \"$@\"", "sh"] }

    func read(_ file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }

    /// Alive and not a zombie.
    func isRunning(_ pid: Int32) -> Bool {
        let state = read("/proc/\(pid)/stat").split(separator: ")").last?.split(separator: " ").first
        return state != nil && state != "Z"
    }

    func cpuMicroseconds(_ group: String) -> Int {
        read(group + "/cpu.stat").split(separator: "\n").first { $0.hasPrefix("usage_usec ") }
            .flatMap { Int($0.dropFirst(11)) } ?? 0
    }

    /// Kills what is left and removes the cgroups, deepest first.
    func remove() {
        _ = try? CommandRunner.run("/bin/sh", ["-c", "echo 1 > \(directory)/cgroup.kill"])
        for _ in 0..<200 where read(directory + "/cgroup.events").contains("populated 1") { usleep(10_000) }
        _ = try? CommandRunner.run("/usr/bin/find", [directory, "-depth", "-type", "d", "-exec", "rmdir", "{}", ";"])
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// Where the memory and io controllers are delegated (not on this project's CI machine, whose
/// v1 hierarchies hold them), a job's cgroup reports memory and storage bytes from their files.
@Suite struct JobCgroupUsageTests {
    /// The controls are written into the controllers' files (a directory standing in for the
    /// cgroup: the kernel's enforcement of them needs delegated controllers this machine's
    /// unified hierarchy does not have); only the enforced ones reach it.
    @Test func theControlsAreWrittenIntoTheCgroupsFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = ["cpu.weight", "memory.max", "memory.oom.group", "io.weight", "pids.max"]
        for file in files { _ = FileManager.default.createFile(atPath: directory + "/" + file, contents: nil) }
        let cgroups = DelegatedCgroups(mount: "/sys/fs/cgroup", base: "/lull", controllers: ["memory", "pids", "io"])
        let asked = RunResources(cpuWeight: 50, memoryMax: 64 << 20, ioWeight: 20, tasksMax: 8)
        #expect(cgroups.enforced(asked) == RunResources(memoryMax: 64 << 20, ioWeight: 20, tasksMax: 8))
        #expect(cgroups.enforces("tasks_max") && !cgroups.enforces("cpu_weight"))
        try JobCgroup(directory: directory, path: "/lull/jobs/job-1").apply(cgroups.enforced(asked))
        let written = files.map { (try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)) ?? "" }
        #expect(written == ["", "67108864", "1", "default 20", "8"])
        #expect(cgroups.group(of: JobID(7)).path == "/lull/jobs/job-7")
        #expect(cgroups.group(of: JobID(7)).directory == "/sys/fs/cgroup/lull/jobs/job-7")
    }

    @Test func memoryAndIOComeFromTheControllersFilesWhenTheyAreThere() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func write(_ text: String, _ name: String) throws {
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        let group = JobCgroup(directory: directory, path: "/lulld/jobs/job-1")
        try write("usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n", "cpu.stat")
        #expect(group.usage() == ServiceUsage(cpuSeconds: 1.5))
        try write("20971520\n", "memory.current")
        try write("209715200\n", "memory.peak")
        try write("8:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n253:1 rbytes=100 wbytes=0\n", "io.stat")
        #expect(
            group.usage()
                == ServiceUsage(
                    cpuSeconds: 1.5,
                    memoryBytes: 20 << 20,
                    memoryPeakBytes: 200 << 20,
                    ioReadBytes: 4196,
                    ioWriteBytes: 8192
                )
        )
    }
}
