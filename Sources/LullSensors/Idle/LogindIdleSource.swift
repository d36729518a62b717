import Foundation
import Logging
import LullCore
import Synchronization

/// Idleness from systemd-logind on D-Bus: the manager's `IdleHint` and `IdleSinceHint`
/// (microseconds of `CLOCK_REALTIME`), following `PropertiesChanged`. logind says idle when
/// every session that can idle is idle and no idle inhibitor blocks, so a machine without
/// sessions is idle (since 0: as long as it has run). Without logind on the bus, idleness is
/// unknown; the source follows logind's name, so it reads again when logind (re)appears.
public final class LogindIdleSource: IdleSource {
    public static let serviceName = "org.freedesktop.login1"
    static let path = "/org/freedesktop/login1"
    static let managerInterface = "org.freedesktop.login1.Manager"

    /// What logind told us.
    struct Model: Sendable, Equatable {
        /// Whether logind answered; nil before the first look.
        var present: Bool?
        var idleHint: Bool?
        var idleSinceHint: UInt64?
        /// Why logind could not be read, when it could not.
        var problem: String?
    }

    public let bus: BusEndpoint
    private let logger: Logger
    private let broadcaster = StateBroadcaster(IdleState.unknown)
    private let model = Mutex(Model())
    private let link = SensorBusLink()

    public init(bus: BusEndpoint = .system, logger: Logger = Logger(label: "lull.sensors.idle")) {
        self.bus = bus
        self.logger = logger
    }

    public var current: IdleState { broadcaster.current }
    public func changes() -> AsyncStream<IdleState> { broadcaster.changes() }
    public func values() -> AsyncStream<IdleState> { broadcaster.values() }

    /// Throws when the bus cannot be reached; `current` then says so and stays unknown.
    public func start() async throws {
        do {
            try await link.open(bus, name: "lull-dbus-logind", following: "idleness", logger: logger) {
                [self] context in
                try subscribe(context)
                readAll(context)
            }
        } catch {
            broadcaster.update(IdleState(.unknown, source: "no D-Bus connection to look for logind (\(bus))"))
            broadcaster.finish()
            throw error
        }
    }

    public func stop() async {
        await link.close()
        broadcaster.finish()
    }

    // MARK: on the bus thread

    private func subscribe(_ context: BusContext) throws {
        try context.onPropertiesChanged(sender: Self.serviceName, path: Self.path) {
            [self] interface, changed, invalidated in
            guard interface == Self.managerInterface else { return }
            model.withLock { Self.apply(changed, to: &$0) }
            if invalidated.contains(where: { $0 == "IdleHint" || $0 == "IdleSinceHint" }) { readAll(context) }
            publish()
        }
        try context.onNameOwnerChanged(Self.serviceName) { [self] hasOwner in
            if hasOwner {
                readAll(context)
            } else {
                logger.warning("logind left the bus; idleness unknown")
                model.withLock { $0 = Model(present: false) }
                publish()
            }
        }
    }

    /// Reads the manager's properties; logind absent (or unreadable) makes idleness unknown.
    private func readAll(_ context: BusContext) {
        var next = Model(present: false)
        do {
            if try context.nameIsAvailable(Self.serviceName) {
                let properties = try context.getAll(
                    destination: Self.serviceName,
                    path: Self.path,
                    interface: Self.managerInterface
                )
                next.present = true
                Self.apply(properties, to: &next)
            }
        } catch {
            next.problem = "\(error)"
        }
        model.withLock { $0 = next }
        publish()
    }

    private static func apply(_ properties: [String: DBusValue], to model: inout Model) {
        if let value = properties["IdleHint"]?.bool { model.idleHint = value }
        if let value = properties["IdleSinceHint"]?.integer { model.idleSinceHint = UInt64(clamping: value) }
    }

    private func publish() {
        let state = Self.state(from: model.withLock { $0 })
        if broadcaster.update(state) {
            logger.debug("idleness changed", metadata: ["idle": "\(state.name)", "source": "\(state.source)"])
        }
    }

    static func state(from model: Model) -> IdleState {
        if let problem = model.problem { return IdleState(.unknown, source: "logind not readable: \(problem)") }
        guard model.present == true else { return IdleState(.unknown, source: "logind not found") }
        switch model.idleHint {
        case nil:
            return IdleState(.unknown, source: "logind without IdleHint")
        case false?:
            return IdleState(.active, source: "logind IdleHint false")
        case true?:
            // 0: no session has ever been active (logind's timestamp is unset).
            let micros = model.idleSinceHint ?? 0
            let since = micros == 0 ? Date.distantPast : Date(timeIntervalSince1970: Double(micros) / 1_000_000)
            return IdleState(.idle(since: since), source: "logind IdleHint true")
        }
    }
}
