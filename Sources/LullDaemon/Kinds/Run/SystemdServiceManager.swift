import Foundation
import LullCore
import LullSensors
import LullTransfer
import Synchronization

/// Run jobs' units in systemd, over sd-bus: `StartTransientUnit` with the command, its
/// identity and limits as properties; the unit's end followed through `PropertiesChanged`; its
/// figures read from the unit, which `AddRef` keeps loaded after it ends until `release`.
final class SystemdServiceManager: ServiceManager {
    static let destination = "org.freedesktop.systemd1"
    static let managerPath = "/org/freedesktop/systemd1"
    static let managerInterface = "org.freedesktop.systemd1.Manager"

    private let changes: UnitChanges
    /// The event loops' timers, not `Task.sleep` (see `Sleeper`).
    private let sleeper: any Sleeper
    private let bus: ReconnectingBus
    private let endpoint: BusEndpoint
    /// Units frozen by SIGSTOP, where the manager would not freeze them (see `freeze`).
    private let stoppedBySignal = Mutex<Set<String>>([])
    /// What each running unit's end is judged against: its memory limit and the kernel's count
    /// of OOM kills when it started.
    private let starts = Mutex<[String: (memoryMax: Int64?, oomKills: Int64?)]>([:])

    /// Units this manager holds a reference to (`AddRef=`, `Ref`). A reference belongs to the bus
    /// connection that took it, so a new connection takes them again: without one, a unit that
    /// ends is collected with its result.
    private let referenced: Referenced
    /// How long a unit's state may fail to be read (the manager busy, the bus reconnecting)
    /// before its attempt is given up as not followed.
    private let followPatience: Duration

    final class Referenced: Sendable {
        let units = Mutex<Set<String>>([])
    }

    init(endpoint: BusEndpoint, sleeper: any Sleeper, followPatience: Duration = .seconds(300)) {
        let changes = UnitChanges(sleeper: sleeper)
        self.changes = changes
        self.endpoint = endpoint
        self.sleeper = sleeper
        let referenced = Referenced()
        self.referenced = referenced
        self.followPatience = followPatience
        bus = ReconnectingBus(endpoint: endpoint, name: "lull-units") { connection in
            try await connection.perform { context in
                for unit in referenced.units.withLock({ $0 }) {
                    // A unit gone meanwhile has nothing to keep.
                    _ = try? context.call(
                        destination: Self.destination,
                        path: UnitChanges.path(of: unit),
                        interface: "org.freedesktop.systemd1.Unit",
                        member: "Ref"
                    )
                }
                try context.addMatch(
                    "type='signal',sender='\(Self.destination)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='\(Self.managerPath)/unit'"
                ) { message in
                    if let path = message.path { changes.changed(path) }
                }
                // The manager sends unit signals only while some client is subscribed.
                try context.call(
                    destination: Self.destination,
                    path: Self.managerPath,
                    interface: Self.managerInterface,
                    member: "Subscribe"
                )
            }
        }
    }

    func close() async { await bus.close() }

    // MARK: starting

    func startTransient(_ service: TransientService) async throws(JobFailure) {
        try await endLeftover(service.name)
        let properties = TransientUnitProperties.of(service)
        let oomKills = KernelOOMCount.read()
        do {
            try await bus.perform { context in
                _ = try context.call(
                    destination: Self.destination,
                    path: Self.managerPath,
                    interface: Self.managerInterface,
                    member: "StartTransientUnit",
                    signature: "ssa(sv)a(sa(sv))",
                    arguments: [.string(service.name), .string("fail"), .array(properties), .array([])]
                )
            }
        } catch {
            throw Self.failure("start \(service.name)", error)
        }
        referenced.units.withLock { _ = $0.insert(service.name) }
        let memoryMax = service.launch.resources.memoryMax
        starts.withLock { $0[service.name] = (memoryMax, oomKills) }
    }

    func start(existing unit: String, jobID: JobID) async throws(JobFailure) {
        do {
            let state = try await bus.perform { context -> String in
                let path =
                    try context.call(
                        destination: Self.destination,
                        path: Self.managerPath,
                        interface: Self.managerInterface,
                        member: "LoadUnit",
                        arguments: [.string(unit)]
                    ).read().string ?? ""
                let load =
                    try context.get(
                        destination: Self.destination,
                        path: path,
                        interface: "org.freedesktop.systemd1.Unit",
                        property: "LoadState"
                    ).string ?? ""
                guard load == "loaded" else { return load }
                // Kept loaded, with its figures, until `release`.
                try context.call(
                    destination: Self.destination,
                    path: path,
                    interface: "org.freedesktop.systemd1.Unit",
                    member: "Ref"
                )
                try context.call(
                    destination: Self.destination,
                    path: Self.managerPath,
                    interface: Self.managerInterface,
                    member: "StartUnit",
                    arguments: [.string(unit), .string("replace")]
                )
                return load
            }
            guard state == "loaded" else {
                throw JobFailure(
                    code: "unit_not_found",
                    message: "the unit \(unit) cannot be started: its load state is \(state) (is it installed?)",
                    retryable: false
                )
            }
        } catch let failure as JobFailure {
            throw failure
        } catch {
            throw Self.failure("start \(unit)", error)
        }
        referenced.units.withLock { _ = $0.insert(unit) }
        starts.withLock { $0[unit] = (nil, nil) }
    }

    /// A unit of this name that is still there (lulld crashed while the job ran) is stopped
    /// and forgotten before the job's new attempt.
    private func endLeftover(_ unit: String) async throws(JobFailure) {
        let exists = (try? await state(of: unit)) != nil
        guard exists else { return }
        await stop(unit)
        _ = await end(of: unit)
        _ = try? await managerCall("ResetFailedUnit", unit)
    }

    func endLeftovers(of units: [String]) async -> [String] {
        var ended: [String] = []
        for unit in units {
            // Not waited for: a command slow to stop must not hold up the start. The job's next
            // attempt waits for the unit's end before it starts it again (`endLeftover`).
            guard let state = try? await state(of: unit), !state.hasEnded, await stop(unit) else { continue }
            ended.append(unit)
        }
        return ended
    }

    /// The unit lulld itself runs in on this manager, nil when it runs in none of its units;
    /// throws when the manager does not answer. The manager is asked (`GetUnitByPID` of 0 is the
    /// caller's): `sd_pid_get_unit` also reads PID 1's cgroup, which the system unit's
    /// `ProtectProc=invisible` hides. Over a connection of its own, closed after: the manager's
    /// connection subscribes to every unit's changes, which a lulld that runs no command has
    /// no use for.
    func ownUnit() async throws -> String? {
        try await BusConnection.once(endpoint, name: "lull-own-unit") { context -> String? in
            let path: String
            do {
                path =
                    try context.call(
                        destination: Self.destination,
                        path: Self.managerPath,
                        interface: Self.managerInterface,
                        member: "GetUnitByPID",
                        arguments: [.uint32(0)]
                    ).read().string ?? ""
            } catch let error as BusError where error.name == "org.freedesktop.systemd1.NoUnitForPID" {
                return nil
            }
            guard
                let id = try context.get(
                    destination: Self.destination,
                    path: path,
                    interface: "org.freedesktop.systemd1.Unit",
                    property: "Id"
                ).string
            else { throw BusError(operation: "read the Id of lulld's unit \(path)", errno: EBADMSG) }
            return id
        }
    }

    // MARK: following

    /// A failure to read the state (a call timing out while the manager is busy, the bus being
    /// connected again) is retried for `followPatience`: giving up on a unit that still runs
    /// would start its command again in the next attempt.
    func end(of unit: String) async -> ServiceEnd {
        let path = UnitChanges.path(of: unit)
        // On the clock a suspend stops: a unit that sleeps through one is not given up at the wake.
        var failingSince: SuspendingClock.Instant?
        var delay = Duration.milliseconds(100)
        while true {
            let seen = changes.generation(of: path)
            let state: UnitState?
            do {
                state = try await self.state(of: unit)
                failingSince = nil
                delay = .milliseconds(100)
            } catch {
                let since = failingSince ?? .now
                failingSince = since
                guard !Task.isCancelled, SuspendingClock.now - since < followPatience else {
                    return ServiceEnd(outcome: .failed("cannot follow \(unit): \(error)"))
                }
                try? await sleeper.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
                continue
            }
            guard let state else { return ServiceEnd(outcome: .failed("\(unit) is gone")) }
            if state.hasEnded { return await finalEnd(of: unit, path: path) }
            await changes.wait(path, after: seen, atMost: .seconds(2))
        }
    }

    private func finalEnd(of unit: String, path: String) async -> ServiceEnd {
        let values =
            (try? await bus.perform { context in
                try context.getAll(
                    destination: Self.destination,
                    path: path,
                    interface: "org.freedesktop.systemd1.Service"
                )
            }) ?? [:]
        let usage = Self.usage(values)
        let start = starts.withLock { $0.removeValue(forKey: unit) }
        stoppedBySignal.withLock { _ = $0.remove(unit) }
        let result = values["Result"]?.string ?? ""
        let code = values["ExecMainCode"]?.integer ?? 0
        let status = Int(values["ExecMainStatus"]?.integer ?? 0)
        let outcome: ServiceEnd.Outcome
        switch (result, code) {
        case ("oom-kill", _): outcome = .memoryLimit
        // lulld keeps a job unit's time limit itself: there `timeout` is the stop grace's, of
        // processes an exited command left behind, and its exit stands. An existing unit's own
        // `RuntimeMaxSec=` is a timeout.
        case ("timeout", 1) where JobUnitNames.isJobUnit(unit): outcome = .exited(status)
        case ("timeout", _): outcome = .timedOut
        case (_, 1): outcome = .exited(status)
        case (_, 2), (_, 3):
            // cgroup v1: systemd cannot tell an OOM kill; the kernel's count of them can.
            let oomKilled =
                status == 9 && start?.memoryMax != nil
                && (KernelOOMCount.read() ?? 0) > (start?.oomKills ?? .max)
            outcome = oomKilled ? .memoryLimit : .killed(signal: status)
        default: outcome = .failed("\(unit) ended without running its command (result \(result))")
        }
        return ServiceEnd(outcome: outcome, usage: usage)
    }

    @discardableResult
    func stop(_ unit: String) async -> Bool {
        do {
            // Gone, or ended by itself: nothing to stop.
            if try await state(of: unit)?.hasEnded ?? true { return false }
        } catch {
            // A state that cannot be read is taken as running: the stop is sent.
        }
        _ = try? await managerCall("StopUnit", unit, .string("replace"))
        return true
    }

    func freeze(_ unit: String) async -> Bool {
        if (try? await managerCall("FreezeUnit", unit)) != nil { return true }
        // Refused: no cgroup v2 freezer (cgroup v1), not ours to call (systemd 252's system bus
        // passes FreezeUnit only from root without the installed units/lull.dbus-policy.conf,
        // polkit only with the opt-in rule), or a pending job (a oneshot's whole run is its
        // start job). Then SIGSTOP to every process of the unit, unless the unit is on its way
        // down or gone: a stopped command could not end by itself, so the refusal ends the
        // attempt instead.
        do {
            guard let state = try await state(of: unit), Self.running.contains(state.active) else { return false }
        } catch {
            // A state that cannot be read is taken as running.
        }
        guard (try? await managerCall("KillUnit", unit, .string("all"), .int32(19))) != nil else { return false }
        stoppedBySignal.withLock { _ = $0.insert(unit) }
        return true
    }

    /// Active states whose processes a pause may stop by signal.
    private static let running: Set<String> = ["active", "activating", "reloading"]

    func thaw(_ unit: String) async -> Bool {
        if stoppedBySignal.withLock({ $0.remove(unit) != nil }) {
            return (try? await managerCall("KillUnit", unit, .string("all"), .int32(18))) != nil
        }
        return (try? await managerCall("ThawUnit", unit)) != nil
    }

    func usage(of unit: String) async -> ServiceUsage? {
        let path = UnitChanges.path(of: unit)
        guard
            let values = try? await bus.perform({ context in
                try context.getAll(
                    destination: Self.destination,
                    path: path,
                    interface: "org.freedesktop.systemd1.Service"
                )
            })
        else { return nil }
        return Self.usage(values)
    }

    func release(_ unit: String) async {
        let path = UnitChanges.path(of: unit)
        _ = try? await bus.perform { context in
            _ = try context.call(
                destination: Self.destination,
                path: path,
                interface: "org.freedesktop.systemd1.Unit",
                member: "Unref"
            )
        }
        referenced.units.withLock { _ = $0.remove(unit) }
        changes.forget(path)
    }

    // MARK: reading

    private struct UnitState: Sendable {
        var active: String
        var sub: String
        var jobPending: Bool

        /// Its main process has run and the unit is down (or, for `RemainAfterExit=`, exited).
        var hasEnded: Bool {
            !jobPending && (active == "inactive" || active == "failed" || active == "active" && sub == "exited")
        }
    }

    /// The unit's state, or nil when the manager has no such unit loaded.
    private func state(of unit: String) async throws -> UnitState? {
        try await bus.perform { context -> UnitState? in
            do {
                let path =
                    try context.call(
                        destination: Self.destination,
                        path: Self.managerPath,
                        interface: Self.managerInterface,
                        member: "GetUnit",
                        arguments: [.string(unit)]
                    ).read().string ?? ""
                let values = try context.getAll(
                    destination: Self.destination,
                    path: path,
                    interface: "org.freedesktop.systemd1.Unit"
                )
                let job = values["Job"].flatMap { value -> Int64? in
                    if case .structure(let fields) = value { return fields.first?.integer }
                    return nil
                }
                return UnitState(
                    active: values["ActiveState"]?.string ?? "",
                    sub: values["SubState"]?.string ?? "",
                    jobPending: (job ?? 0) != 0
                )
            } catch let error as BusError where error.name == "org.freedesktop.systemd1.NoSuchUnit" {
                return nil
            }
        }
    }

    /// Figures systemd gives as 2^64-1 when it has none.
    private static func usage(_ values: [String: DBusValue]) -> ServiceUsage {
        func figure(_ name: String) -> Int64? {
            guard case .uint64(let value)? = values[name], value != .max else { return nil }
            return Int64(clamping: value)
        }
        return ServiceUsage(
            cpuSeconds: figure("CPUUsageNSec").map { Double($0) / 1e9 },
            memoryBytes: figure("MemoryCurrent"),
            memoryPeakBytes: figure("MemoryPeak"),
            ioReadBytes: figure("IOReadBytes"),
            ioWriteBytes: figure("IOWriteBytes")
        )
    }

    private func managerCall(_ member: String, _ unit: String, _ more: DBusValue...) async throws {
        let arguments = [DBusValue.string(unit)] + more
        try await bus.perform { context in
            _ = try context.call(
                destination: Self.destination,
                path: Self.managerPath,
                interface: Self.managerInterface,
                member: member,
                arguments: arguments
            )
        }
    }

    private static func failure(_ what: String, _ error: any Error) -> JobFailure {
        let denied =
            (error as? BusError)?.name.map { $0.contains("AccessDenied") || $0.contains("Interactive") } ?? false
        return JobFailure(
            code: denied ? "permission_denied" : "unit_failed",
            message: denied
                ? "the service manager refused to \(what): \(error) (the system instance needs the shipped polkit rule, 50-lull.rules)"
                : "cannot \(what): \(error)",
            retryable: !denied
        )
    }
}
