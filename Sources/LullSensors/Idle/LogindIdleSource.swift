import Foundation
import Logging
import LullCore
import Synchronization

/// Idleness from systemd-logind on D-Bus: the manager's `IdleHint` and `IdleSinceHint`
/// (microseconds of `CLOCK_REALTIME`), following `PropertiesChanged`. logind says idle when
/// every session that can idle is idle and no idle inhibitor blocks, so a machine without
/// sessions is idle (since 0: as long as it has run). Without logind on the bus, idleness is
/// unknown; the source follows logind's name, so it reads again when logind (re)appears.
///
/// logind works the hint out when asked and signals it only when a session sets its own: a
/// session starting or ending, an idle inhibitor taken or dropped, and a text session's input
/// (its terminal's access time) change it silently. So the source reads again at `SessionNew`,
/// `SessionRemoved` and any other change of the manager's properties, and every
/// `refreshInterval` while logind is there.
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
        /// The same moment in microseconds of `CLOCK_MONOTONIC`, which a wall-clock step (the
        /// first NTP sync of a board without a real-time clock) does not move.
        var idleSinceHintMonotonic: UInt64?
        /// Why logind could not be read, when it could not.
        var problem: String?
    }

    public let bus: BusEndpoint
    private let refreshInterval: Duration
    private let sleeper: any Sleeper
    /// The periodic reader, and whether `stop()` came (after which none is started).
    private let refresher = Mutex<(task: Task<Void, Never>?, stopped: Bool)>((nil, false))
    private let logger: Logger
    private let broadcaster = StateBroadcaster(IdleState.unknown)
    private let model = Mutex(Model())
    private let link: SensorBusLink
    /// How often the source looks for a bus that was not there at start.
    private let busWaitInterval: Duration

    /// - Parameter sleeper: how the source waits between reads; the daemon passes its event-loop
    ///   sleeper.
    public init(
        bus: BusEndpoint = .system,
        refreshInterval: Duration = .seconds(60),
        sleeper: any Sleeper = TaskSleeper(),
        reconnectDelay: Duration = .seconds(1),
        busWaitInterval: Duration = .seconds(60),
        logger: Logger = Logger(label: "lull.sensors.idle")
    ) {
        self.busWaitInterval = busWaitInterval
        link = SensorBusLink(reconnectDelay: reconnectDelay)
        self.bus = bus
        self.refreshInterval = refreshInterval
        self.sleeper = sleeper
        self.logger = logger
    }

    public var current: IdleState { broadcaster.current }
    public func changes() -> AsyncStream<IdleState> { broadcaster.changes() }
    public func values() -> AsyncStream<IdleState> { broadcaster.values() }

    /// Without a bus to reach yet (lulld started before it), idleness is unknown, saying so,
    /// and the source looks again every `busWaitInterval`: logind is read once the bus is there.
    public func start() async {
        let open = await link.openOrWait(
            bus,
            name: "lull-dbus-logind",
            following: "idleness",
            logger: logger,
            sleeper: sleeper,
            every: busWaitInterval,
            unreachable: { [self] failure in
                logger.warning(
                    "cannot reach D-Bus; idleness is unknown until it can, trying again",
                    metadata: ["bus": "\(bus)", "error": "\(failure)"]
                )
                broadcaster.update(IdleState(.unknown, source: "no D-Bus connection to look for logind (\(bus))"))
            }
        ) { [self] context in
            try subscribe(context)
            readAll(context)
        }
        if open { startRefreshing() }  // a stop meanwhile: `startRefreshing` starts nothing
    }

    public func stop() async {
        refresher.withLock { refresher in
            refresher.stopped = true
            refresher.task?.cancel()
        }
        await link.close()
        broadcaster.finish()
    }

    // MARK: on the bus thread

    private func subscribe(_ context: BusContext) throws {
        try context.onPropertiesChanged(sender: Self.serviceName, path: Self.path) {
            [self] interface, changed, invalidated in
            guard interface == Self.managerInterface else { return }
            // Another property (BlockInhibited, say) may have moved the hint without naming it.
            guard changed["IdleHint"] != nil, !invalidated.contains(where: { $0.hasPrefix("IdleSince") }) else {
                readAll(context)
                return
            }
            model.withLock { Self.apply(changed, to: &$0) }
            publish()
        }
        for member in ["SessionNew", "SessionRemoved"] {
            try context.addMatch(
                "type='signal',sender='\(Self.serviceName)',path='\(Self.path)',interface='\(Self.managerInterface)',member='\(member)'"
            ) { [self] _ in readAll(context) }
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

    private func startRefreshing() {
        refresher.withLock { refresher in
            guard !refresher.stopped else { return }
            refresher.task = Task { [self] in
                while true {
                    do { try await sleeper.sleep(for: refreshInterval) } catch { return }
                    try? await link.perform { [self] context in
                        if model.withLock({ $0.present }) == true { readAll(context) }
                    }
                }
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
        if let value = properties["IdleSinceHintMonotonic"]?.integer {
            model.idleSinceHintMonotonic = UInt64(clamping: value)
        }
    }

    private func publish() {
        let state = Self.state(from: model.withLock { $0 }, now: Self.now())
        if broadcaster.update(state) {
            logger.debug("idleness changed", metadata: ["idle": "\(state.name)", "source": "\(state.source)"])
        }
    }

    /// The wall clock and `CLOCK_MONOTONIC` (microseconds) read together.
    static func now() -> (wall: Date, monotonicMicros: UInt64) {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return (Date(), UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1000)
    }

    /// The monotonic idle-since, when logind gives one, is turned into a wall-clock time now,
    /// against the wall clock as it is now: a step of the wall clock since the user left then
    /// does not move it (the realtime one would carry the clock of that moment).
    static func state(from model: Model, now: (wall: Date, monotonicMicros: UInt64)) -> IdleState {
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
            let since: Date
            if micros == 0 {
                since = .distantPast
            } else if let monotonic = model.idleSinceHintMonotonic, monotonic > 0, monotonic <= now.monotonicMicros {
                // To the whole second: the two clocks are read microseconds apart, and each read
                // would otherwise give another `since`, a change to publish and decide on.
                let wall = now.wall.timeIntervalSince1970 - Double(now.monotonicMicros - monotonic) / 1_000_000
                since = Date(timeIntervalSince1970: wall.rounded())
            } else {
                since = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
            }
            return IdleState(.idle(since: since), source: "logind IdleHint true")
        }
    }
}
