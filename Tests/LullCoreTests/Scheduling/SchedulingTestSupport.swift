import Foundation
import LullCore

/// Virtual time: seconds after Monday 2025-03-03 00:00:00 UTC.
let epoch = Date(timeIntervalSince1970: 1_740_960_000)

func at(_ seconds: Double) -> Date { epoch.addingTimeInterval(seconds) }
func hours(_ h: Double) -> Double { h * 3600 }

enum Worlds {
    static func world(
        onBattery: Bool = false,
        battery: Double? = nil,
        connectivity: NetworkState.Connectivity = .online,
        metered: Bool = false,
        cellular: Bool = false,
        cpu: Double? = nil,
        memory: Double? = nil
    ) -> WorldSnapshot {
        WorldSnapshot(
            power: PowerState(onBattery: onBattery, batteryPercent: battery, source: "UPower DisplayDevice"),
            network: NetworkState(
                connectivity: connectivity,
                metered: metered,
                cellular: cellular,
                interface: cellular ? "wwan0" : "wlan0",
                source: "NetworkManager"
            ),
            pressure: PressureState(cpu: cpu, memory: memory, source: "/proc/pressure")
        )
    }

    static let pluggedIn = world()
    static func battery(_ percent: Double) -> WorldSnapshot { world(onBattery: true, battery: percent) }
    static let metered = world(metered: true)
    static let cellular = world(metered: true, cellular: true)
    static let offline = world(connectivity: .offline)
}

func job(
    _ id: Int64,
    _ className: String = "default",
    owner: UInt32 = 1000,
    kind: JobKind = .fetch,
    host: String = "example.org",
    constraints: JobConstraints = .none,
    notBefore: Date? = nil,
    backoffUntil: Date? = nil,
    deadline: Date? = nil,
    onDeadline: DeadlineAction = .run,
    bytes: Int64? = nil,
    deferrable: Bool? = nil
) -> QueuedJob {
    QueuedJob(
        id: JobID(id),
        owner: OwnerID(owner),
        kind: kind,
        className: className,
        host: host,
        constraints: constraints,
        notBefore: notBefore,
        backoffUntil: backoffUntil,
        deadline: deadline,
        onDeadline: onDeadline,
        expectedBytesDown: bytes,
        deferrable: deferrable
    )
}

extension SchedulingDecision {
    var startedIDs: [Int64] { start.map(\.id.rawValue) }
}

extension JobScheduler {
    func codes(_ id: Int64, _ world: WorldSnapshot, _ now: Date) -> [WaitingReason.Code] {
        waitingReasons(for: JobID(id), world: world, now: now).map(\.code)
    }

    /// The default policy with `maxConcurrent` global slots, changed further by `configure`.
    init(maxConcurrent: Int, _ configure: (inout SchedulingPolicy) -> Void = { _ in }) {
        var policy = SchedulingPolicy.defaults
        policy.maxConcurrent = ConfiguredLimit(maxConcurrent)
        configure(&policy)
        self.init(policy: policy)
    }

    /// Decides and finishes at once until the queue is empty (or nothing starts); the ids in
    /// the order they started.
    mutating func drain(world: WorldSnapshot, now: Date) -> [Int64] {
        var order: [Int64] = []
        while queuedCount > 0 {
            let started = decide(world: world, now: now).startedIDs
            if started.isEmpty { break }
            order += started
            for id in started { jobFinished(JobID(id), at: now) }
        }
        return order
    }
}

/// SplitMix64: a tiny deterministic generator, seeded by the property-based framework.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func double(_ range: Range<Double>) -> Double { Double.random(in: range, using: &self) }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}

/// An independent statement of "this job may start now" used by the property tests: the
/// stricter of class and job wins, a past deadline with `run` overrides the discretionary part.
struct ConstraintOracle {
    var policy: SchedulingPolicy
    var utcOffset: Int

    func classPolicy(_ job: QueuedJob) -> JobClassPolicy {
        policy.classPolicy(named: job.className) ?? policy.classPolicy(named: "default")!
    }

    func hardConditionsHold(_ job: QueuedJob, _ world: WorldSnapshot, pausedAll: Bool) -> Bool {
        !pausedAll && (world.network.connectivity != .offline || job.constraints.network == .notNeeded)
    }

    func timingHolds(_ job: QueuedJob, now: Date) -> Bool {
        (job.notBefore ?? .distantPast) <= now && (job.backoffUntil ?? .distantPast) <= now
    }

    func discretionaryHold(_ job: QueuedJob, _ world: WorldSnapshot, now: Date) -> Bool {
        let cls = classPolicy(job)
        let power = world.power
        if power.onBattery {
            if cls.requiresAC || job.constraints.requiresAC { return false }
            let least = [cls.minBattery, job.constraints.minBattery].compactMap { $0 }.max()
            // configuration.md: a floor of 0 never holds a job, even with the charge unknown.
            if let least, least > 0, (power.batteryPercent ?? -1) < least { return false }
        }
        // A job that needs no network is held by no link.
        let network = job.constraints.network
        if world.network.metered && network != .notNeeded {
            if !cls.allowMetered || network == .unmetered { return false }
            if let cap = cls.maxMeteredJobBytes, (job.expectedBytes ?? 0) > cap { return false }
        }
        if world.network.cellular && network != .notNeeded && (!cls.allowCellular || network != .any) { return false }
        if let most = cls.maxCPUPressure, let cpu = world.pressure.cpu, cpu > most { return false }
        if let most = cls.maxMemoryPressure, let mem = world.pressure.memory, mem > most { return false }
        if let window = cls.window {
            var second = (now.timeIntervalSince1970 + Double(utcOffset)).truncatingRemainder(dividingBy: 86_400)
            if second < 0 { second += 86_400 }
            let minute = Int(second / 60)
            let s = window.startMinute
            let e = window.endMinute
            let inside = s == e || (s < e ? (minute >= s && minute < e) : (minute >= s || minute < e))
            if !inside { return false }
        }
        return true
    }

    func overdueRun(_ job: QueuedJob, now: Date) -> Bool {
        job.onDeadline == .run && job.deadline.map { $0 <= now } == true
    }

    /// May `job` start at `now` under `world`, limits aside?
    func mayStart(_ job: QueuedJob, _ world: WorldSnapshot, now: Date, pausedAll: Bool) -> Bool {
        hardConditionsHold(job, world, pausedAll: pausedAll) && timingHolds(job, now: now)
            && (discretionaryHold(job, world, now: now) || overdueRun(job, now: now))
    }
}
