import Foundation
import Logging
import LullCore

#if canImport(Glibc)
import Glibc
#endif

/// The runner of run jobs. On the process host it resolves the program, starts it through its
/// `ProcessLauncher` as the job's owner, and waits for it on a thread of its own (see
/// `ProcessSupervisor`); on the systemd host a `ServiceManager` runs it as a unit
/// (`RunTransfer+Units`). Cancelling the task (a stop, pause or cancel) ends the process group:
/// SIGTERM, then SIGKILL after `stop_grace_seconds`; the attempt then throws
/// `CancellationError`. A command does not resume: its next attempt starts from the beginning.
public struct RunTransfer: TransferEngine {
    let launcher: any ProcessLauncher
    let logs: RunLogs
    /// The process groups of running commands, for `endLeftovers` after a crash.
    let groups: LeftoverGroups
    /// Where each attempt blocks, from spawn to reap.
    let threads = AttemptThreads()
    /// Starts given up while their threads still hang (a hung mount).
    let stuck = StuckStarts()
    let settings: RunSettings
    /// The groups of running commands, for pause (SIGSTOP) and resume (SIGCONT).
    public let running: RunningCommands
    /// The systemd host's manager; nil on the process host.
    let manager: (any ServiceManager)?
    /// The units of running jobs on the systemd host.
    public let units: RunningUnits
    /// What those units are named.
    public let unitNames: JobUnitNames
    /// Where each line of a unit's output also goes (the journal, with the job's id).
    let outputLines: (@Sendable (JobID, Substring) -> Void)?
    /// The subtree delegated to lulld, where each command started by lulld gets a cgroup of
    /// its own; nil: commands run in process groups.
    let cgroups: DelegatedCgroups?
    /// Where what the admin should know goes (a group that could not be recorded).
    let logger: Logger?
    /// On the process host of a lulld without the rights to run others' commands: its own uid,
    /// the one owner it runs commands for (`ProcessHostRights`). Nil: anyone's.
    let commandsOnlyOf: OwnerID?
    /// Paces the usage sampling of units: the daemon's event loops, not `Task.sleep` (`Sleeper`).
    let sleeper: any Sleeper

    public init(
        launcher: any ProcessLauncher = SpawnLauncher(),
        logs: RunLogs,
        settings: RunSettings,
        running: RunningCommands = RunningCommands(),
        manager: (any ServiceManager)? = nil,
        managerIsSystem: Bool = true,
        unitNames: JobUnitNames = .plain,
        outputLines: (@Sendable (JobID, Substring) -> Void)? = nil,
        cgroups: DelegatedCgroups? = nil,
        commandsOnlyOf: OwnerID? = nil,
        sleeper: any Sleeper = TaskSleeper(),
        logger: Logger? = nil
    ) {
        self.sleeper = sleeper
        self.commandsOnlyOf = commandsOnlyOf
        self.logger = logger
        self.outputLines = outputLines
        self.cgroups = cgroups
        self.launcher = launcher
        self.logs = logs
        self.groups = LeftoverGroups(path: logs.groups)
        self.settings = settings
        self.running = running
        self.manager = manager
        self.units = RunningUnits(isSystemManager: managerIsSystem)
        self.unitNames = unitNames
    }

    public func run(_ job: Job, context: TransferContext) async throws -> JobResult {
        guard let command = job.spec.payload.run else {
            throw JobFailure(code: "unsupported_kind", message: "not a run job", retryable: false)
        }
        if let unit = command.unit {
            guard let manager else {
                throw JobFailure(
                    code: "unit_failed",
                    message:
                        "this lulld starts commands itself ([run] host = \"process\"); starting the unit \(unit) needs the systemd host",
                    retryable: false
                )
            }
            return try await runExisting(unit, job: job, command: command, manager: manager)
        }
        if let manager { return try await runAsUnit(job, command: command, manager: manager) }
        // Accepted by a lulld that ran commands as units, then restarted as one that cannot
        // hold the command to its own limits: it is not run without them.
        if let field = command.resources?.values.first(where: { cgroups?.enforces($0.field) != true })?.field {
            throw JobFailure(
                code: "not_enforceable",
                message:
                    "the job asks for \(field), which only a systemd unit or a cgroup with the \(RunResources.controller(of: field)) controller enforces, and this lulld starts commands itself ([run] host = \"process\") without one; set [run] host = \"systemd\" or submit the job again without it",
                retryable: false
            )
        }
        // Accepted by a lulld that could run it (as root, or as units), then restarted as one
        // that cannot: it would fail to switch identity, or run with no way to stop it.
        if let only = commandsOnlyOf, job.owner != only {
            throw JobFailure(
                code: "permission_denied",
                message: RunJob.cannotRun(as: job.owner, daemon: only),
                retryable: false
            )
        }
        if let refusal = stuck.refusal(for: job.id) { throw refusal }
        let attempt = attempt(of: job, command: command)
        // Checked every second only while `StuckStarts.limit` starts hang, which is rare.
        while stuck.isFull {
            guard Self.now() < attempt.deadline else { throw stuck.waitedTooLong() }
            try await sleeper.sleep(for: .seconds(1))
        }
        let supervisor = ProcessSupervisor()
        let end = AttemptEnd<Result<JobResult, JobFailure>?>()
        threads.run { [stuck] in
            let outcome = attempt.run(supervisor)
            stuck.returned(supervisor, of: job.id)
            end.finish(outcome)
        }
        // A start stuck before the launch (a working directory on a hung mount) is given up
        // at the total timeout, or a cancellation; its thread is left to end by itself.
        let timeout = Task { [sleeper, stuck] in
            try await sleeper.sleep(for: .seconds(max(0, attempt.deadline - Self.now())))
            if stuck.giveUp(supervisor, of: job.id) { end.finish(.failure(Self.startTimedOut(attempt))) }
        }
        let ended = await withTaskCancellationHandler {
            await end.outcome()
        } onCancel: { [stuck] in
            supervisor.requestStop()
            if stuck.giveUp(supervisor, of: job.id) { end.finish(nil) }
        }
        timeout.cancel()
        guard let ended else { throw CancellationError() }
        return try ended.get()
    }

    /// A cancelled job's log goes with it. A job that failed for good keeps its log (this is
    /// also called then, with the job still `running`), for `lullctl logs` to show why.
    public func discardResumeData(of job: Job) async {
        guard job.state == .cancelled else { return }
        logs.remove(job.id)
        // What a crashed lulld left in the job's cgroup, when no attempt of it runs here.
        if let cgroup = cgroups?.group(of: job.id), running.processGroup(of: job.id) == nil {
            cgroup.killAll()
            _ = cgroup.awaitEmpty(seconds: 2)
            cgroup.remove()
        }
    }

    /// Ends what a crashed lulld left running of the commands it started itself (their process
    /// groups), before any job runs again here. Returns the groups ended.
    @discardableResult
    public func endLeftovers() -> [Int32] {
        groups.endAll()
    }

    /// On the systemd host, the units of `jobs` (run jobs a crashed lulld left `running`) that
    /// still run under any of `names` (by default this runner's), stopped; see
    /// `ServiceManager.endLeftovers`.
    public func endLeftoverUnits(of jobs: [JobID], named names: [JobUnitNames]? = nil) async -> [String] {
        guard let manager, !jobs.isEmpty else { return [] }
        let names = names ?? [unitNames]
        return await manager.endLeftovers(of: jobs.flatMap { id in names.map { $0.unit(of: id) } })
    }

    func attempt(of job: Job, command: RunJob) -> CommandAttempt {
        // A unit takes every control as a property; a process only what its cgroup enforces.
        let cgroups = cgroups
        let enforced: (@Sendable (RunResources) -> RunResources)? =
            manager == nil ? { @Sendable resources in cgroups?.enforced(resources) ?? RunResources() } : nil
        return CommandAttempt(
            id: job.id,
            owner: job.owner.rawValue,
            command: command,
            deadline: Self.now() + (job.spec.timeouts?.totalSeconds ?? settings.totalTimeout),
            launcher: launcher,
            logPath: logs.path(of: job.id),
            groups: groups,
            logLimit: settings.maxLogBytes,
            running: running,
            classDefaults: settings.defaults(of: job.spec.jobClass),
            cgroup: cgroups?.group(of: job.id),
            enforced: enforced,
            logger: logger
        )
    }

    static func startTimedOut(_ attempt: CommandAttempt) -> JobFailure {
        JobFailure(
            code: "total_timeout",
            message:
                "the command had not started when its total timeout ran out: looking up \(attempt.command.argv.first ?? "the program") or its working directory hung (a hung network or FUSE mount?)",
            retryable: true
        )
    }

    /// The monotonic clock attempts' deadlines are on.
    static func now() -> Double { ProcessSupervisor.now() }
}

extension RunTransfer: UsageReportingEngine {
    public func usage(of id: JobID) -> CommandUsage? { units.usage(of: id) ?? running.usage(of: id) }
    public func usages() -> [JobID: CommandUsage] { running.usages().merging(units.usages()) { _, unit in unit } }
}

extension RunTransfer: FreezableEngine {
    /// SIGSTOP to the job's process group, or the unit frozen by its manager: a paused command
    /// keeps its state and its slot. The manager's answer is awaited, so a refused freeze is not
    /// recorded as a pause, and a thaw that follows is never sent before it.
    public func freeze(_ id: JobID) async -> Bool {
        guard let manager, let unit = units.unit(of: id) else { return running.freeze(id) }
        // Stopped first: a deadline passing while the manager freezes must not stop the unit.
        let deadline = units.deadline(of: id)
        deadline?.froze()
        guard await manager.freeze(unit) else {
            deadline?.thawed()
            return false
        }
        return true
    }

    public func thaw(_ id: JobID) async -> Bool {
        guard let manager, let unit = units.unit(of: id) else { return running.thaw(id) }
        guard await manager.thaw(unit) else { return false }
        units.deadline(of: id)?.thawed()
        return true
    }
}
