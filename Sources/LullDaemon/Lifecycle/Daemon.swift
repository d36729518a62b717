import AsyncHTTPClient
import Dispatch
import Foundation
import Logging
import LullAPI
import LullCore
import LullSensors
import LullStore
import LullTransfer
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Wires the adapters around the core and runs until SIGTERM or SIGINT.
/// Start-up does only what is needed to be usable before READY: open the store, requeue
/// interrupted jobs, listen.
public enum Daemon {
    public static func run(_ settings: DaemonSettings, logger: Logger) async throws {
        // A reload asked for while lulld starts (opening and migrating the store can take a
        // while) waits for it, instead of ending the daemon with SIGHUP's default action. A stop
        // still ends it at once until the restore: nothing is running yet.
        let signals = SignalStream([SIGHUP])
        try StateDirectory.prepare(settings.stateDirectory)
        let descriptors = DescriptorLimit.raiseToHard()
        let descriptorLimit = descriptors.inForce
        let lock = try InstanceLock(stateDirectory: settings.stateDirectory)
        var settings = settings
        if settings.config.run.host == .process {
            settings.config.run.cgroups = RunCgroupChoice.establish(settings.config.run.cgroup, logger: logger)
        }
        defer { withExtendedLifetime(lock) {} }

        let hub = EventHub()
        let store: SQLiteJobStore
        do {
            store = try await StoreOpening.open(
                path: settings.storePath,
                notifier: SystemdNotifier(sleeper: EventLoopSleeper(group: MultiThreadedEventLoopGroup.singleton)),
                logger: logger
            ) { events in hub.published(events) }
        } catch let error as StoreVersionError {
            throw StartupError(error.description, exitStatus: .refused)
        }
        for file in store.narrowedFiles {
            logger.notice("store file was readable by others; made it 0600: \(file)", metadata: ["file": "\(file)"])
        }
        // The log of earlier runs: without it `status.last_event_seq` read 0 after a restart until
        // the next event, and a client that starts following there replays the whole history.
        hub.published(upTo: try await store.latestEventSeq())
        let group = MultiThreadedEventLoopGroup.singleton
        let activated = SystemdNotifier.listenDescriptor(named: settings.config.socketName)
        ConfigWarning.log(ConfigWarning.atStart(settings, socketActivated: activated != nil), to: logger)
        let trimmer = HeapTrimmer { logger.debug("gave free heap memory back") }
        let connections = ConnectionLimit(
            ConfigReloader.connectionCaps(settings.config, descriptorLimit: descriptorLimit)
        ) { trimmer.trim() }
        let claimed = try await listen(settings, activated: activated, connections: connections, logger: logger)
        let transfers = settings.config.transfers
        let clients = HTTPClients(
            eventLoopGroup: group,
            environment: ProcessInfo.processInfo.environment,
            connectTimeout: .milliseconds(Int64(transfers.connectTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(transfers.idleTimeout * 1000)),
            markingRefusals: MarkingRefusals(logger: logger)
        )
        for unusable in clients.proxy.unusable {
            logger.warning(
                "\(unusable.variable) cannot be used, so \(unusable.scheme) transfers that would take it fail with proxy_unusable: \(unusable.reason)"
            )
        }
        do {
            try await serve(
                settings,
                signals: signals,
                listener: claimed,
                activated: activated != nil,
                store: store,
                hub: hub,
                clients: clients,
                connections: ConfigReloader.Connections(limit: connections, descriptorLimit: descriptorLimit),
                commandDescriptorLimit: descriptors.raisedFrom,
                trimmer: trimmer,
                logger: logger
            )
        } catch {
            await clients.shutdown()
            throw error
        }
        await clients.shutdown()
        if activated == nil { unlink(settings.socketPath) }
        logger.notice("stopped")
    }

    private typealias Listener = NIOAsyncChannel<(ControlServer.Connection, PeerCredentials)?, Never>

    /// Takes the socket handed over by systemd, or binds our own after making sure no live
    /// daemon owns the path.
    private static func listen(
        _ settings: DaemonSettings,
        activated: CInt?,
        connections: ConnectionLimit,
        logger: Logger
    ) async throws -> Listener {
        let group = MultiThreadedEventLoopGroup.singleton
        let admission = ControlServer.Admission(
            readTimeout: .milliseconds(Int64(settings.config.limits.requestReadTimeout * 1000)),
            connections: connections,
            logger: logger
        )
        if let descriptor = activated {
            return try await ControlServer.adopt(descriptor: descriptor, admission: admission, on: group)
        }
        let socketDirectory = URL(fileURLWithPath: settings.socketPath).deletingLastPathComponent().path
        try makeDirectory(socketDirectory, mode: settings.config.socketMode & 0o077 == 0 ? 0o700 : 0o755)
        try InstanceLock.claimSocket(at: settings.socketPath)
        let oldMask = umask(0o077)
        defer { umask(oldMask) }
        let listener = try await ControlServer.bind(path: settings.socketPath, admission: admission, on: group)
        chmod(settings.socketPath, mode_t(settings.config.socketMode))
        return listener
    }

    private static func serve(
        _ settings: DaemonSettings,
        signals: SignalStream,
        listener: Listener,
        activated: Bool,
        store: SQLiteJobStore,
        hub: EventHub,
        clients: HTTPClients,
        connections: ConfigReloader.Connections,
        commandDescriptorLimit: UInt64?,
        trimmer: HeapTrimmer,
        logger: Logger
    ) async throws {
        // Taken over before the restore, which can take seconds with a large queue: a stop
        // meanwhile then waits for it instead of killing the daemon with the default action.
        signals.take([SIGTERM, SIGINT])
        let config = settings.config
        let core = await DaemonCore.assemble(
            config: config,
            stateDirectory: settings.stateDirectory,
            store: store,
            clients: clients,
            commandDescriptorLimit: commandDescriptorLimit,
            logger: logger
        )
        let (clock, files, notifier, samples, metrics) = (
            core.clock, core.files, core.notifier, core.samples, core.metrics
        )
        let (manager, unitStarter, dispatcher) = (core.manager, core.unitStarter, core.dispatcher)
        defer { Task { await core.stopSensing() } }
        do {
            try await notifier.extendingTimeout(progress: { await dispatcher.progressTicks }) {
                try await dispatcher.restore()
            }
        } catch {
            try? await listener.channel.close()
            throw error
        }
        let sleep = await SleepInhibitor.start(
            on: config.sensors.bus,
            logger: logger,
            sleeper: clients.sleeper,
            sleeping: { await dispatcher.checkpointForSleep() },
            woke: { await dispatcher.resumeAfterSleep() }
        )
        let info = DaemonInfo(
            version: LullDefaults.version,
            pid: getpid(),
            startedAt: clock.now(),
            socketPath: settings.socketPath,
            stateDirectory: settings.stateDirectory
        )
        // Read to the end: String(contentsOfFile:) stops after the first 4 KiB of a /proc file,
        // before the private mounts, which come last.
        let mountInfo = FileHandle(forReadingAtPath: "/proc/self/mountinfo")?.readDataToEndOfFile() ?? Data()
        let privateDirectories = PrivateDirectories(mountInfo: String(decoding: mountInfo, as: UTF8.self))
        if !privateDirectories.paths.isEmpty {
            logger.notice(
                "these directories are private to lulld and refused as job paths: \(privateDirectories.paths.joined(separator: " "))",
                metadata: ["private_directories": "\(privateDirectories.paths.joined(separator: " "))"]
            )
        }
        let validators = ValidatorHolder(
            ConfigReloader.validator(
                for: config,
                manager: manager,
                privateDirectories: privateDirectories,
                commandsOnlyOf: core.commandsOnlyOf
            )
        )
        let pruner = FinishedJobPruner(
            store: store,
            keep: config.keepFinished,
            removeLog: { [logs = RunLogs(stateDirectory: settings.stateDirectory)] in logs.remove($0) },
            clock: clock,
            sleeper: clients.sleeper,
            logger: logger
        )
        let reloader = ConfigReloader(
            settings: settings,
            manager: manager,
            dispatcher: dispatcher,
            validators: validators,
            connections: connections,
            notifier: notifier,
            logger: logger,
            bandwidth: core.bandwidth,
            pruner: pruner
        )
        let router = ControlRouter(
            store: store,
            dispatcher: dispatcher,
            hub: hub,
            validators: validators,
            info: info,
            clock: clock,
            samples: samples,
            metrics: metrics,
            files: files,
            reloader: reloader,
            sleeper: clients.sleeper
        )
        let startupPages = StartupPages()
        let server = ControlServer(
            router: router,
            logger: logger,
            largeRequestAnswered: { trimmer.trimWhenQuiet(for: .seconds(1), sleeper: clients.sleeper) },
            requestArrived: { startupPages.workArrived() }
        )

        let queued = await dispatcher.queuedCount
        logger.notice(
            "lulld ready: \(ConfigSources.describe(settings)); socket \(settings.socketPath); \(queued) jobs queued",
            metadata: [
                "max_connections": "\(connections.limit.caps.nonRoot)",
                "open_file_limit": "\(connections.descriptorLimit)",
                "socket": "\(settings.socketPath)", "state_dir": "\(settings.stateDirectory)",
                "queued": "\(queued)", "socket_activated": "\(activated)", "hooks": "\(manager)",
            ]
        )
        notifier.ready(status: await dispatcher.statusLine())
        let status = ServiceStatus(
            sleeper: clients.sleeper,
            line: { await dispatcher.statusLine() },
            send: { notifier.status($0) }
        )
        await dispatcher.observeStatus { status.changed() }
        await dispatcher.observeStarts { startupPages.workArrived() }
        if let interval = SystemdNotifier.watchdogInterval() {
            await dispatcher.startHeartbeat(every: interval) { notifier.watchdog() }
            logger.info("watchdog enabled", metadata: ["ping_interval": "\(interval)"])
        }

        let serving = Task { try await server.serve(listener) }
        // After READY: a first sweep over a long history must not hold up the start.
        await pruner.start()
        await startupPages.release(logger: logger)
        var stopSignal = "end of signals"
        for await signal in signals.stream {
            if signal == SIGHUP {
                _ = await reloader.reload()
                continue
            }
            stopSignal = signal == SIGTERM ? "SIGTERM" : "SIGINT"
            break
        }
        logger.notice("stopping on \(stopSignal)", metadata: ["signal": "\(stopSignal)"])
        notifier.stopping()
        serving.cancel()
        await pruner.stop()
        try? await listener.channel.close()
        await notifier.extendingTimeout(progress: { await dispatcher.progressTicks }) { await dispatcher.drain() }
        await sleep?.stop()
        await unitStarter.close()
        _ = await serving.result
        if !(await store.closeCleanly()) {
            logger.info(
                "the store's clean stop was not fully recorded (its mark, or emptying its WAL); at worst the next start numbers events past a gap"
            )
        }
    }

    private static func makeDirectory(_ path: String, mode: mode_t) throws(StartupError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw StartupError("\(path) exists and is not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: Int(mode)]
            )
        } catch {
            throw StartupError(
                "cannot create \(path): \(error.localizedDescription); pick another with --state-dir or --socket"
            )
        }
    }
}
