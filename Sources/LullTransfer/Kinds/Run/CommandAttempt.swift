import CLullSys
import Foundation
import Logging
import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// One attempt, run on its own thread from start to reaping: nothing here blocks a task.
struct CommandAttempt: Sendable {
    let id: JobID
    let owner: UInt32
    let command: RunJob
    let deadline: Double
    let launcher: any ProcessLauncher
    let logPath: String
    let groups: LeftoverGroups
    let logLimit: Int64
    let running: RunningCommands
    /// The job's class's run defaults, merged under the job's own values in `prepare`.
    var classDefaults = RunClassDefaults()
    /// The cgroup the command starts in, where lulld has a delegated subtree.
    var cgroup: JobCgroup? = nil
    /// The controls the cgroup can enforce, of those given (a class's others are warned about
    /// at start-up; a job's own others were refused).
    /// nil: all of them (a unit's properties).
    var enforced: (@Sendable (RunResources) -> RunResources)? = nil
    /// Where a group that could not be recorded is told of.
    var logger: Logger? = nil

    /// The outcome, or nil when the attempt was stopped on request.
    func run(_ supervisor: ProcessSupervisor) -> Result<JobResult, JobFailure>? {
        do throws(JobFailure) {
            let request = try prepare()
            // Given up while it prepared (stuck on a hung mount): nothing more is created.
            guard !supervisor.stopWasRequested else { return nil }
            try cgroup?.prepare()
            // Until the command is in it, the cgroup is this function's to remove.
            var launched = false
            defer { if !launched { cgroup?.remove() } }
            try cgroup?.apply(request.resources)
            var procs = cgroup?.openProcs() ?? -1
            defer { if procs >= 0 { close(procs) } }
            if let cgroup, procs < 0 {
                throw JobFailure(
                    code: "internal_error",
                    message: "cannot open \(cgroup.directory)/cgroup.procs: \(Self.reason())",
                    retryable: true
                )
            }
            let log = try RunLogFile(path: logPath, limit: logLimit)
            var pipe: [Int32] = [-1, -1]
            guard lull_pipe(&pipe, 0) == 0 else {
                log.close()
                throw JobFailure(
                    code: "internal_error",
                    message: "cannot make a pipe: \(Self.reason())",
                    retryable: true
                )
            }
            defer { close(pipe[0]) }
            guard supervisor.beginLaunch() else {
                close(pipe[1])
                log.close()
                return nil
            }
            let process: LaunchedProcess
            do {
                var launching = request
                launching.outputDescriptor = pipe[1]
                launching.cgroupDescriptor = procs
                launching.cancelDescriptor = supervisor.wakeDescriptor
                launching.startTimeout = deadline - ProcessSupervisor.now()
                process = try launcher.launch(launching)
                launched = true
                close(pipe[1])
                if procs >= 0 {
                    close(procs)
                    procs = -1
                }
                guard supervisor.launched() else {
                    // Given up while it launched: its outcome has no taker, so it gets no grace.
                    // Its process group only: the job's cgroup may hold a later attempt by now.
                    kill(-process.pid, SIGKILL)
                    kill(process.pid, SIGKILL)
                    var status: Int32 = 0
                    while waitpid(process.pid, &status, 0) < 0 && errno == EINTR {}
                    log.close()
                    return nil
                }
            } catch {
                close(pipe[1])
                log.close()
                if supervisor.stopWasRequested { return nil }
                throw error
            }
            running.add(id, group: process.pid, cgroup: cgroup, supervisor: supervisor)
            let slot: Int?
            do {
                slot = try groups.record(process.pid)
            } catch {
                slot = nil
                // Once per run of failures: a broken state directory fails every job alike.
                if error.first {
                    logger?.warning(
                        "job \(id.rawValue): \(error): it runs, but if lulld stops abruptly meanwhile, the next start cannot end it; the same failure for later jobs is not logged again until a group is recorded"
                    )
                }
            }
            var sampled: RunningCommands.Sampled?
            let end = supervisor.supervise(
                pid: process.pid,
                output: pipe[0],
                log: log,
                tail: OutputTail(capacity: command.outputTailBytes ?? RunJob.defaultOutputTailBytes),
                grace: command.stopGraceSeconds ?? RunJob.defaultStopGraceSeconds,
                deadline: deadline,
                cgroup: cgroup,
                exiting: {
                    sampled = running.remove(id)
                    if let slot { groups.clear(slot) }
                }
            )
            if end.stopped { return nil }
            var result = RunExit.result(
                of: end,
                outputTail: command.outputTailBytes == 0 ? nil : end.outputTail,
                sampled: sampled
            )
            result.cgroup = cgroup?.path
            if end.oomKilled, let limit = request.resources.memoryMax {
                throw JobFailure(
                    code: "memory_limit",
                    message: "the command was killed at its memory limit of \(limit) bytes (memory_max)",
                    retryable: false,
                    result: result
                )
            }
            if end.timedOut {
                throw JobFailure(
                    code: "total_timeout",
                    message: "the command ran past its total timeout and was stopped",
                    retryable: true,
                    result: result
                )
            }
            return RunExit.outcome(of: result, job: command)
        } catch {
            return .failure(error)
        }
    }

    /// The launch, from the owner's account: the minimal environment plus the job's, the
    /// working directory (the home by default), the program found on the job's PATH, and the
    /// niceness and resource controls in force (the job's own, else its class's).
    /// The directory and program are checked with the owner's rights, so that a failure says
    /// what the owner may see: lulld's own rights would tell apart paths the owner cannot.
    func prepare() throws(JobFailure) -> LaunchRequest {
        let account = try OwnerAccount.lookUp(owner)
        var environment = [
            "PATH": CommandLookup.defaultPath, "HOME": account.home, "USER": account.name, "LANG": "C.UTF-8",
        ]
        environment.merge(command.environment ?? [:]) { _, job in job }
        let directory = command.workingDirectory ?? account.home
        let merged = (command.resources ?? RunResources()).merged(over: classDefaults.resources)
        let located: Result<String, JobFailure>
        do {
            located = try FileAccess.asOwner(owner, switching: lull_can_switch_fs_user() != 0) {
                Self.locate(command.argv[0], in: directory, path: environment["PATH"] ?? CommandLookup.defaultPath)
            }
        } catch let failure as JobFailure {
            throw failure
        } catch {
            throw JobFailure(
                code: "account_unavailable",
                message: "lulld could not take on the identity of uid \(owner) to find the command: \(error)",
                retryable: true
            )
        }
        let path = try located.get()
        return LaunchRequest(
            path: path,
            argv: command.argv,
            environment: environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" },
            directory: directory,
            outputDescriptor: -1,
            identity: Self.runsAsDaemon(owner) ? nil : account,
            nice: (command.nice ?? classDefaults.nice).map(Int32.init),
            resources: enforced?(merged) ?? merged
        )
    }

    private static func reason() -> String { String(cString: strerror(errno)) }

    /// The program's full path, once the working directory is found to be a directory.
    private static func locate(_ program: String, in directory: String, path: String) -> Result<String, JobFailure> {
        var info = stat()
        guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            return .failure(
                JobFailure(
                    code: "working_directory_unavailable",
                    message: "the working directory \(directory) is not a directory that exists (\(reason()))",
                    retryable: false
                )
            )
        }
        guard let found = CommandLookup.resolve(program, path: path, directory: directory) else {
            return .failure(
                JobFailure(
                    code: "command_not_found",
                    message: program.contains("/")
                        ? "\(program) is not an executable file" : "\(program) is not on the job's PATH (\(path))",
                    retryable: false
                )
            )
        }
        return .success(found)
    }

    /// Whether the command may simply inherit the daemon's identity: the owner is
    /// the daemon's user, and that user is root or holds no capabilities to pass on. Otherwise
    /// the launcher switches identity and drops capabilities.
    private static func runsAsDaemon(_ owner: UInt32) -> Bool {
        owner == geteuid() && (owner == 0 || lull_can_switch_fs_user() == 0)
    }
}
