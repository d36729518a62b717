import Logging
import LullCore
import LullSensors
import LullStore
import LullTransfer

/// What runs jobs, below the control server: the kinds' runners, the sensors, the hooks and the
/// dispatcher over them, built from the config the same way by lulld and by the in-process test
/// harness.
struct DaemonCore {
    let clock: SystemClock
    let files: FileAccess
    let notifier: SystemdNotifier
    let sensors: WorldMonitor
    let pressure: SamplerPressureGauge
    let samples: SampleWatch
    let metrics: DaemonMetrics
    let manager: HookManager
    let unitStarter: SystemdUnitStarter
    let dispatcher: Dispatcher
    /// The bandwidth limits over running jobs; a reload gives it the new policy.
    let bandwidth: BandwidthLimiter
    /// The one owner whose commands the process host runs, when lulld cannot run others'.
    let commandsOnlyOf: OwnerID?

    static func assemble(
        config: DaemonConfig,
        stateDirectory: String,
        store: SQLiteJobStore,
        clients: HTTPClients,
        commandDescriptorLimit: UInt64? = nil,
        logger: Logger
    ) async
        -> DaemonCore
    {
        let clock = SystemClock()
        let files = FileAccess(allowedDirectories: config.allowedDirectories)
        let runHost = RunHostChoice(resolved: config.run.host)
        let unitManager = runHost.makeManager(sleeper: clients.sleeper)
        let (unitNames, leftoverNames) = await jobUnitNames(
            manager: unitManager,
            stateDirectory: stateDirectory,
            logger: logger
        )
        logger.info("run jobs: commands \(runHost)\(unitManager == nil ? "" : ", named \(unitNames)")")
        let run = RunTransfer(
            launcher: SpawnLauncher(descriptorSoftLimit: commandDescriptorLimit),
            logs: RunLogs(stateDirectory: stateDirectory),
            settings: config.runSettings,
            manager: unitManager,
            managerIsSystem: runHost.isSystemManager,
            unitNames: unitNames,
            outputLines: runHost.host == .systemd
                ? JournalOutput(now: { clock.now().timeIntervalSince1970 }).forward : nil,
            cgroups: config.run.cgroups,
            commandsOnlyOf: runHost.commandsOnlyOf,
            sleeper: clients.sleeper,
            logger: logger
        )
        for group in run.endLeftovers() {
            logger.notice("ended process group \(group), a command a previous lulld left running")
        }
        // Only the systemd host has units to look for: no store read at every start elsewhere.
        if runHost.host == .systemd {
            let interrupted = await interruptedRunJobs(in: store, logger: logger)
            for unit in await run.endLeftoverUnits(of: interrupted, named: leftoverNames) {
                logger.notice("stopped \(unit), a command a previous lulld left running")
            }
        }
        // Where each kind's runner is registered.
        let engines: [JobKind: any TransferEngine] = [
            .fetch: FetchTransfer(clients: clients, files: files, settings: config.transfers),
            .push: PushTransfer(clients: clients, settings: config.transfers),
            .upload: UploadTransfer(clients: clients, files: files, settings: config.transfers),
            .run: run,
        ]
        let sleeper = clients.sleeper
        let bandwidth = BandwidthLimiter(policy: config.policy, sleeper: sleeper, wall: clock)
        let sensors = await WorldMonitor.start(config: config.sensors, sleeper: sleeper, logger: logger)
        let pressure = SamplerPressureGauge(sampler: sensors.sampler, procRoot: config.sensors.procRoot)
        let metrics = DaemonMetrics()
        let manager = HookManager(config.hooks.manager)
        let unitStarter = SystemdUnitStarter(endpoint: manager.endpoint)
        let hooks = CompletionHooks(store: store, starter: unitStarter, clock: clock, sleeper: sleeper, logger: logger)
        let dispatcher = Dispatcher(
            store: store,
            engines: engines.limited(by: bandwidth),
            policy: config.policy,
            world: sensors.current,
            pressure: pressure,
            metrics: metrics,
            progressInterval: config.transfers.progressInterval,
            clock: clock,
            sleeper: sleeper,
            logger: logger,
            hooks: hooks
        )
        sensors.follow(dispatcher)
        return DaemonCore(
            clock: clock,
            files: files,
            notifier: SystemdNotifier(sleeper: sleeper),
            sensors: sensors,
            pressure: pressure,
            samples: SampleWatch(sampler: sensors.sampler, sleeper: sleeper),
            metrics: metrics,
            manager: manager,
            unitStarter: unitStarter,
            dispatcher: dispatcher,
            bandwidth: bandwidth,
            commandsOnlyOf: runHost.commandsOnlyOf
        )
    }

    /// What this lulld's job units are named (tagged unless it is its manager's lulld.service:
    /// two lullds on one manager keep to their own units), and the names a crashed lulld on this
    /// state directory may have left units under.
    private static func jobUnitNames(
        manager: SystemdServiceManager?,
        stateDirectory: String,
        logger: Logger
    ) async -> (names: JobUnitNames, leftovers: [JobUnitNames]) {
        guard let manager else { return (.plain, [.plain]) }
        let settled = await JobUnitNames.settled(in: stateDirectory) { try await manager.ownUnit() }
        if let problem = settled.problem {
            logger.warning(
                "job units named \(settled.names) for this run only: \(problem); they are decided again at the next start"
            )
        }
        return (settled.names, settled.leftoverNames)
    }

    /// The run jobs the store still has `running` before the restore requeues them: what a
    /// crashed lulld left running (read before any job starts here).
    private static func interruptedRunJobs(in store: SQLiteJobStore, logger: Logger) async -> [JobID] {
        var ids: [JobID] = []
        var after: JobID?
        do {
            while true {
                let filter = JobFilter(owner: nil, state: .running, after: after, limit: JobFilter.maxLimit)
                let page = try await store.list(filter).items
                guard let last = page.last else { break }
                for stored in page {
                    switch stored {
                    case .readable(let job) where job.spec.kind == .run: ids.append(job.id)
                    case .unreadable(let job) where job.kind == .run: ids.append(job.id)
                    default: break
                    }
                }
                after = last.id
            }
        } catch {
            logger.warning(
                "cannot read which run jobs a previous lulld left running; their units are stopped before they run again",
                metadata: ["error": "\(error)"]
            )
        }
        return ids
    }

    /// Stops the sensors and samplers; the dispatcher is drained by the caller first.
    func stopSensing() async {
        await sensors.stop()
        await pressure.stop()
        await samples.stop()
    }
}
