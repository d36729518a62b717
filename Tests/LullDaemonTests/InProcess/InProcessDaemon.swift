import Foundation
import Logging
import LullAPI
import LullClient
import LullCore
import LullStore
import LullTestSupport
import LullTransfer
import NIOCore
import NIOHTTP1
import NIOPosix

@testable import LullDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The control API without a socket or a process (HummingbirdTesting's `.router` mode): the
/// router, wired as `Daemon.serve` wires it (a real store in a temporary directory, a real
/// dispatcher with its engines, sensors, reloader and validators), answering requests handed
/// to it with the peer's credentials given by the test. What happens before the router (the
/// socket, connection caps, the request size cap, read deadlines) is the server's, and is
/// proved by the live tests.
final class InProcessDaemon: Sendable {
    struct Response: Sendable {
        var status: HTTPResponseStatus
        var contentType: String
        var headers: [(String, String)]
        var body: Data

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let directory: URL
    let configPath: String
    let stateDirectory: String
    /// What `/v1/status` reports as the daemon's pid: this process.
    let pid: Int32
    let store: SQLiteJobStore
    let dispatcher: Dispatcher
    let router: ControlRouter
    private let logLines: RecordingLogHandler.Lines
    private let stopping: @Sendable () async -> Void

    private init(
        directory: URL,
        configPath: String,
        stateDirectory: String,
        store: SQLiteJobStore,
        dispatcher: Dispatcher,
        router: ControlRouter,
        logLines: RecordingLogHandler.Lines,
        stopping: @escaping @Sendable () async -> Void
    ) {
        self.directory = directory
        self.configPath = configPath
        self.stateDirectory = stateDirectory
        pid = getpid()
        self.store = store
        self.dispatcher = dispatcher
        self.router = router
        self.logLines = logLines
        self.stopping = stopping
    }

    /// Starts the components in `directory` with `config` (TOML), which is written to
    /// `configPath` as a live daemon's would be, so `POST /v1/reload` reads it again. Pressure
    /// is read from a `ProcFixture` at zero, as `DaemonProcess` does by default.
    static func start(config: String? = nil, in directory: String) async throws -> InProcessDaemon {
        let fixture = try ProcFixture(in: URL(fileURLWithPath: directory))
        let configPath = directory + "/lull.toml"
        try withProcRoot(fixture.root, in: config ?? "").write(toFile: configPath, atomically: true, encoding: .utf8)
        let options = DaemonOptions(
            configPath: configPath,
            stateDirectory: directory + "/state",
            socketPath: directory + "/run/lull.sock",
            environment: ProcessInfo.processInfo.environment
        )
        let settings = options.settings(with: try ConfigLoader.loadWithDropIns(file: configPath), from: configPath)
        try FileManager.default.createDirectory(atPath: settings.stateDirectory, withIntermediateDirectories: true)
        chmod(settings.stateDirectory, 0o700)

        let lines = RecordingLogHandler.Lines()
        let logger = Logger(label: "lulld") { _ in RecordingLogHandler(lines: lines) }
        let hub = EventHub()
        let store = try SQLiteJobStore(path: settings.storePath) { events in hub.published(events) }
        hub.published(upTo: try await store.latestEventSeq())

        // From here on as `Daemon.serve` does it.
        let config = settings.config
        let transfers = config.transfers
        let clients = HTTPClients(
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            environment: ProcessInfo.processInfo.environment,
            connectTimeout: .milliseconds(Int64(transfers.connectTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(transfers.idleTimeout * 1000))
        )
        let core = await DaemonCore.assemble(
            config: config,
            stateDirectory: settings.stateDirectory,
            store: store,
            clients: clients,
            logger: logger
        )
        let dispatcher = core.dispatcher
        try await dispatcher.restore()
        let validators = ValidatorHolder(
            ConfigReloader.validator(
                for: config,
                manager: core.manager,
                privateDirectories: PrivateDirectories(),
                commandsOnlyOf: core.commandsOnlyOf
            )
        )
        let descriptorLimit = 1024
        let connections = ConnectionLimit(ConfigReloader.connectionCaps(config, descriptorLimit: descriptorLimit))
        let reloader = ConfigReloader(
            settings: settings,
            manager: core.manager,
            dispatcher: dispatcher,
            validators: validators,
            connections: ConfigReloader.Connections(limit: connections, descriptorLimit: descriptorLimit),
            notifier: core.notifier,
            logger: logger,
            bandwidth: core.bandwidth
        )
        let router = ControlRouter(
            store: store,
            dispatcher: dispatcher,
            hub: hub,
            validators: validators,
            info: DaemonInfo(
                version: LullDefaults.version,
                pid: getpid(),
                startedAt: core.clock.now(),
                socketPath: settings.socketPath,
                stateDirectory: settings.stateDirectory
            ),
            clock: core.clock,
            samples: core.samples,
            metrics: core.metrics,
            files: core.files,
            reloader: reloader,
            sleeper: TaskSleeper()
        )
        return InProcessDaemon(
            directory: URL(fileURLWithPath: directory),
            configPath: configPath,
            stateDirectory: settings.stateDirectory,
            store: store,
            dispatcher: dispatcher,
            router: router,
            logLines: lines,
            stopping: {
                await dispatcher.drain()
                await core.stopSensing()
                await core.unitStarter.close()
                await clients.shutdown()
            }
        )
    }

    /// `[sensors] proc_root` set to `root`, added to the section when the text has one.
    private static func withProcRoot(_ root: String, in toml: String) -> String {
        let line = "proc_root = \"\(root)\""
        guard let header = toml.range(of: "[sensors]\n") else { return toml + "\n[sensors]\n\(line)\n" }
        return toml.replacingCharacters(in: header, with: "[sensors]\n\(line)\n")
    }

    /// One request, as the server would hand it to the router once read, from a peer with
    /// `uid`. `target` is the request target: path and query, or the absolute form.
    func handle(
        _ method: HTTPMethod,
        _ target: String,
        headers: [(String, String)] = [],
        body: Data? = nil,
        uid: UInt32 = getuid(),
        gid: UInt32? = nil
    ) async -> Response {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
        head.headers.add(name: "host", value: "lull")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        let peer = PeerCredentials(pid: getpid(), uid: uid, gid: gid ?? uid)
        let request = LullDaemon.ControlRequest(head: head, body: ByteBuffer(data: body ?? Data()), peer: peer)
        switch await router.handle(request) {
        case .complete(let status, let contentType, let data, let headers):
            return Response(status: status, contentType: contentType, headers: headers, body: data)
        case .file(let status, let contentType, let file, let headers):
            var data = Data()
            while Int64(data.count) < file.length {
                let chunk = (try? await file.chunk(at: Int64(data.count))) ?? ByteBuffer()
                guard chunk.readableBytes > 0 else { break }
                data.append(contentsOf: chunk.readableBytesView)
            }
            return Response(status: status, contentType: contentType, headers: headers, body: data)
        case .stream(let contentType, _):
            // Followed streams are the live tests' (the client's stream runs over the socket).
            return Response(status: .ok, contentType: contentType, headers: [], body: Data())
        }
    }

    /// What `curl` over the socket gives the live tests: the status and the body's text.
    func curl(_ method: String, _ target: String, body: Data? = nil, uid: UInt32 = getuid()) async -> (Int, String) {
        let headers = body == nil ? [] : [("content-type", "application/json")]
        let response = await handle(HTTPMethod(rawValue: method), target, headers: headers, body: body, uid: uid)
        return (Int(response.status.code), response.text)
    }

    /// A typed client whose calls this router answers, as the peer `uid`.
    func client(uid: UInt32 = getuid()) -> LullClient {
        LullClient(
            socketPath: directory.appendingPathComponent("run/lull.sock").path,
            exchange: InProcessExchange { [self] method, target, headers, body in
                let response = await handle(
                    HTTPMethod(rawValue: method),
                    target,
                    headers: headers,
                    body: body.map { Data($0) },
                    uid: uid
                )
                return (Int(response.status.code), Array(response.body))
            }
        )
    }

    /// What the components logged so far.
    func log() -> String { logLines.text }

    /// Stops the dispatcher (as a stop does) and everything the start made.
    func stop() async { await stopping() }
}

/// Runs `body` against a fresh in-process daemon and a client as this process's uid; always
/// stops it and removes its directory. The in-process twin of `withDaemon`.
func withInProcessDaemon(
    config: String? = nil,
    _ body: (InProcessDaemon, LullClient) async throws -> Void
) async throws {
    // On tmpfs when there is one: the store's fsyncs, which these tests do not examine, were
    // most of a start on disk.
    let base = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let directory = URL(fileURLWithPath: base).appendingPathComponent("lull-in-process-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let daemon = try await InProcessDaemon.start(config: config, in: directory.path)
    let client = daemon.client()
    do {
        try await body(daemon, client)
        await client.shutdown()
        await daemon.stop()
    } catch {
        await client.shutdown()
        await daemon.stop()
        print("in-process lulld log:\n\(daemon.log())")
        throw error
    }
}
