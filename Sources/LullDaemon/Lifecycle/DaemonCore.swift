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
        logger.info("run jobs: commands \(runHost)")
        let run = RunTransfer(
            launcher: SpawnLauncher(descriptorSoftLimit: commandDescriptorLimit),
            logs: RunLogs(stateDirectory: stateDirectory),
            settings: config.runSettings,
            manager: runHost.makeManager(sleeper: clients.sleeper),
            managerIsSystem: runHost.isSystemManager,
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
        do {
            for unit in try await run.endLeftoverUnits() {
                logger.notice("stopped \(unit), a command a previous lulld left running")
            }
        } catch {
            logger.warning(
                "cannot list the job units a previous lulld may have left running; each is stopped before its job runs again",
                metadata: ["error": "\(error)"]
            )
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

    /// Stops the sensors and samplers; the dispatcher is drained by the caller first.
    func stopSensing() async {
        await sensors.stop()
        await pressure.stop()
        await samples.stop()
    }
}
