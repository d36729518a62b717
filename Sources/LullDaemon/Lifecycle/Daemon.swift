#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import Dispatch
import Foundation
import Logging
import LullAPI
import LullCore
import LullStore
import LullTransfer
import NIOCore
import NIOPosix

/// Wires the adapters around the core and runs until SIGTERM or SIGINT.
/// Start-up does only what is needed to be usable before READY: open the store, requeue
/// interrupted jobs, listen.
public enum Daemon {
    public static func run(_ settings: DaemonSettings, logger: Logger) async throws {
        let config = settings.config
        try makeDirectory(settings.stateDirectory, mode: 0o700)
        let lock = try InstanceLock(stateDirectory: settings.stateDirectory)
        defer { withExtendedLifetime(lock) {} }

        let hub = EventHub()
        let store = try SQLiteJobStore(path: settings.storePath) { events in
            if let last = events.last { hub.published(upTo: last.seq) }
        }
        let group = MultiThreadedEventLoopGroup.singleton
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        clientConfiguration.timeout = .init(connect: .seconds(15), read: .seconds(60))
        let httpClient = HTTPClient(eventLoopGroup: group, configuration: clientConfiguration)

        let clock = SystemClock()
        let dispatcher = Dispatcher(
            store: store, engines: [.fetch: FetchTransfer(client: httpClient)],
            scheduler: Scheduler(maxConcurrent: config.maxConcurrent), clock: clock, logger: logger)
        try await dispatcher.restore()

        let info = DaemonInfo(
            version: LullDefaults.version, pid: getpid(), startedAt: clock.now(), socketPath: settings.socketPath,
            stateDirectory: settings.stateDirectory, maxConcurrent: config.maxConcurrent)
        let router = ControlRouter(
            store: store, dispatcher: dispatcher, hub: hub,
            validator: JobSpecValidator(limits: config.limits), info: info, clock: clock)
        let server = ControlServer(router: router, maxRequestBytes: config.limits.maxRequestBytes, logger: logger)

        let activated = SystemdNotifier.listenDescriptors()
        let listener: NIOAsyncChannel<(ControlServer.Connection, PeerCredentials)?, Never>
        if let descriptor = activated.first {
            listener = try await server.adopt(descriptor: descriptor, on: group)
        } else {
            let socketDirectory = URL(fileURLWithPath: settings.socketPath).deletingLastPathComponent().path
            try makeDirectory(socketDirectory, mode: config.socketMode & 0o077 == 0 ? 0o700 : 0o755)
            try InstanceLock.claimSocket(at: settings.socketPath)
            let oldMask = umask(0o077)
            defer { umask(oldMask) }
            listener = try await server.bind(path: settings.socketPath, on: group)
            chmod(settings.socketPath, mode_t(config.socketMode))
        }

        let notifier = SystemdNotifier()
        let queued = await dispatcher.readyCount
        logger.notice(
            "lulld ready",
            metadata: [
                "socket": "\(settings.socketPath)", "state_dir": "\(settings.stateDirectory)",
                "queued": "\(queued)", "socket_activated": "\(!activated.isEmpty)",
            ])
        notifier.ready(status: "listening on \(settings.socketPath); \(queued) queued")

        let serving = Task { try await server.serve(listener) }
        let signal = await Self.waitForTermination()
        logger.notice("stopping", metadata: ["signal": "\(signal)"])
        notifier.stopping()
        serving.cancel()
        try? await listener.channel.close()
        await dispatcher.drain()
        _ = await serving.result
        try? await httpClient.shutdown()
        if activated.isEmpty { unlink(settings.socketPath) }
        logger.notice("stopped")
    }

    /// Suspends until SIGTERM or SIGINT arrives and returns its name.
    private static func waitForTermination() async -> String {
        let signals: [(CInt, String)] = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")]
        let queue = DispatchQueue(label: "lull.signals")
        return await withCheckedContinuation { continuation in
            let resumed = ResumeOnce(continuation)
            var sources: [any DispatchSourceSignal] = []
            for (number, name) in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    resumed.resume(name)
                    for source in sources { source.cancel() }
                }
                sources.append(source)
            }
            for source in sources { source.resume() }
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
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: Int(mode)])
        } catch {
            throw StartupError("cannot create \(path): \(error.localizedDescription); pick another with --state-dir or --socket")
        }
    }
}

/// Resumes a continuation exactly once, from whichever signal comes first.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<String, Never>?

    init(_ continuation: CheckedContinuation<String, Never>) { self.continuation = continuation }

    func resume(_ value: String) {
        lock.lock()
        let pending = continuation
        continuation = nil
        lock.unlock()
        pending?.resume(returning: value)
    }
}
