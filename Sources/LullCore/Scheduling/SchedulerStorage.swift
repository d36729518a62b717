import HeapModule

// Internal building blocks of `JobScheduler`. Times are `Date.timeIntervalSinceReferenceDate`
// (Double, exactly what a Date holds, so no rounding when converting back); "none"
// is NaN so an entry stays small at a million jobs.

/// A queued job as stored: its class, constraints and owner/kind live in its bucket and group.
struct SchedulerEntry: Sendable {
    enum Pool: UInt8, Sendable {
        /// Not in any structure yet (being placed).
        case detached
        /// Waiting for `notBefore`/`backoffUntil`: only in its group's timers.
        case timed
        /// In a lane of its bucket, ready as far as its own timing goes.
        case ready
        /// Paused by a person: in no structure.
        case paused
        /// Stopped earlier on lost conditions: waits out its hold-down (`JobScheduler.held`).
        case held
    }

    var id: JobID
    var owner: OwnerID
    var host: UInt32
    var bucket: UInt32
    /// Bumped on every re-placement; heap items with an older generation are stale.
    var gen: UInt32
    var kind: JobKind
    var onDeadline: DeadlineAction
    var pool: Pool
    /// The job's own `deferrable` (nil = class default), kept to rebuild the `QueuedJob`.
    var deferrableRequest: Bool?
    /// Effective: held on a costly link until `deadline − coalescingLead` unless the link is awake.
    var deferrable: Bool
    var notBefore: Double
    var backoffUntil: Double
    var deadline: Double
    var expectedDown: Int64
    var expectedUp: Int64

    var readyAt: Double {
        switch (notBefore.isNaN, backoffUntil.isNaN) {
        case (true, true): -.infinity
        case (false, true): notBefore
        case (true, false): backoffUntil
        case (false, false): max(notBefore, backoffUntil)
        }
    }

    var hasDeadline: Bool { !deadline.isNaN }
}

/// Priority of a ready job inside its class. Tiers, best first:
/// 0 past its deadline (`run`), 1 near its deadline (EDF), 2 ordinary (submission order),
/// 3 deferrable and held on a costly link (rides along when the link is awake).
/// Keys never change while an item is in a heap; a tier change is a timer and a re-placement.
struct PoolItem: Comparable, Sendable {
    var tier: UInt8
    var gen: UInt32
    var time: Double
    var id: JobID
    /// Where the job's entry lives; the item is live while that entry has the same generation.
    var slot: UInt32

    static func < (a: PoolItem, b: PoolItem) -> Bool {
        if a.tier != b.tier { return a.tier < b.tier }
        if a.time != b.time { return a.time < b.time }
        return a.id < b.id
    }

    static func == (a: PoolItem, b: PoolItem) -> Bool { a.slot == b.slot && a.gen == b.gen && a.tier == b.tier }

    static let overdue: UInt8 = 0
    static let urgent: UInt8 = 1
    static let ordinary: UInt8 = 2
    static let rider: UInt8 = 3
}

struct TimerItem: Comparable, Sendable {
    var time: Double
    var slot: UInt32
    var gen: UInt32

    static func < (a: TimerItem, b: TimerItem) -> Bool { a.time != b.time ? a.time < b.time : a.slot < b.slot }
}

/// The ready jobs of one bucket for one host.
struct Lane: Sendable {
    var heap = Heap<PoolItem>()
    /// Bumped whenever the lane's reference in the bucket is replaced; older references are stale.
    var version: UInt32 = 0
    /// Its host is at its limit: the lane has no reference in the bucket until a slot frees.
    var parked = false
}

/// A lane's place in its bucket's heap, keyed by the lane's best item (a lower bound of it).
struct LaneRef: Comparable, Sendable {
    var top: PoolItem
    var host: UInt32
    var version: UInt32

    static func < (a: LaneRef, b: LaneRef) -> Bool { a.top < b.top || (!(b.top < a.top) && a.host < b.host) }
    static func == (a: LaneRef, b: LaneRef) -> Bool { a.top == b.top && a.host == b.host && a.version == b.version }
}

struct GroupKey: Hashable, Sendable {
    var classIndex: Int
    var constraints: JobConstraints
    /// The job's expected bytes exceed the class's `max_metered_job_bytes`.
    var tooBigForMetered: Bool
}

/// A group's effective constraints as plain numbers (NaN = no limit), checked once per world.
struct GroupRule: Sendable {
    var classIndex: Int
    var requiresAC: Bool
    var requiresIdle: Bool
    var minBattery: Double
    /// Metered links allowed: the class and job allow them and the job is not too big for one.
    var meteredOK: Bool
    var cellularOK: Bool
    /// Offline holds it (all jobs but those with `network: "none"`).
    var needsNetwork: Bool
    var maxCPU: Double
    var maxMemory: Double
    var window: DailyWindow?
    var meteredBudget: Int64?

    init(classIndex: Int, effective: EffectiveConstraints, tooBigForMetered: Bool, meteredBudget: Int64?) {
        self.classIndex = classIndex
        requiresAC = effective.requiresAC
        requiresIdle = effective.requiresIdle
        minBattery = effective.minBattery ?? .nan
        // A job that moves no bytes is neither too big for a metered link nor held by its budget.
        meteredOK = effective.allowMetered && (!tooBigForMetered || !effective.needsNetwork)
        cellularOK = effective.allowCellular
        needsNetwork = effective.needsNetwork
        maxCPU = effective.maxCPUPressure ?? .nan
        maxMemory = effective.maxMemoryPressure ?? .nan
        window = effective.window
        self.meteredBudget = effective.needsNetwork ? meteredBudget : nil
    }
}

/// Jobs sharing a class and effective constraints: one evaluation per world.
struct GroupState: Sendable {
    let key: GroupKey
    let effective: EffectiveConstraints
    var buckets: [Int] = []
    /// Queued jobs of the group that are not paused (timed or ready).
    var live = 0

    init(key: GroupKey, effective: EffectiveConstraints) {
        self.key = key
        self.effective = effective
    }
}

/// The identity of a bucket, kept apart from its heaps so reading it copies nothing.
struct BucketInfo: Sendable {
    var group: Int
    var classIndex: Int
    var owner: OwnerID
    /// The owner's index in `JobScheduler.ownerTurn`: an array read in the hot loop, not a hash.
    var ownerSlot: Int
    var kind: JobKind
    /// Where the bucket sits in its group's and its class's `buckets`, so it leaves them in O(1).
    var groupPosition: Int
    var classPosition: Int
}

struct BucketKey: Hashable, Sendable {
    var group: Int
    var owner: OwnerID
    var kind: JobKind
}

/// Jobs of one group, owner and kind (see `BucketInfo`), in lanes by host.
struct BucketState: Sendable {
    var lanes: [UInt32: Lane] = [:]
    var laneHeap = Heap<LaneRef>()
    /// Ready jobs in the lanes.
    var ready = 0
    /// Queued jobs of the bucket in any pool (paused ones too): at 0 the bucket is freed.
    var members = 0
}

struct ClassState: Sendable {
    var buckets: [Int] = []
    let maxConcurrent: Int
    var running = 0
    /// Stride-scheduling pass: the class with the least pass gets the next slot.
    var pass: Int = 0
    let stride: Int
}

struct RunningJob: Sendable {
    var className: String
    var classIndex: Int
    var kind: JobKind
    var owner: OwnerID
    var host: UInt32
    /// The job's conditions as they were when it started, checked again while it runs.
    var constraints: JobConstraints
    var tooBigForMetered: Bool
    var rule: GroupRule
    var deadline: Double
    var onDeadline: DeadlineAction
    /// A stop was decided; the attempt is winding down.
    var stopping = false
    /// Its conditions lapsed, but it was expected to finish within the class's `finish_within`
    /// and left to run: each progress report checks again whether it still is.
    var spared = false
}

/// The conditions a group fails under a world, as a set.
struct ConditionSet: OptionSet, Sendable {
    let rawValue: UInt16
    static let paused = ConditionSet(rawValue: 1 << 0)
    static let offline = ConditionSet(rawValue: 1 << 1)
    static let quota = ConditionSet(rawValue: 1 << 2)
    static let onBattery = ConditionSet(rawValue: 1 << 3)
    static let batteryBelow = ConditionSet(rawValue: 1 << 4)
    static let metered = ConditionSet(rawValue: 1 << 5)
    static let cellular = ConditionSet(rawValue: 1 << 6)
    static let cpuPressure = ConditionSet(rawValue: 1 << 7)
    static let memoryPressure = ConditionSet(rawValue: 1 << 8)
    static let outsideWindow = ConditionSet(rawValue: 1 << 9)
    /// Someone uses the machine, it has not been idle for `idle_after` yet, or nobody can tell.
    static let notIdle = ConditionSet(rawValue: 1 << 10)

    /// Never overridden, not even by a deadline with `run`.
    static let hard: ConditionSet = [.paused, .offline, .quota]
    /// Conditions that change with the clock alone (so they get a timer). Idle does while the
    /// machine is idle but not yet for `idle_after`; otherwise logind's next signal is the event.
    static let timeDriven: ConditionSet = [.outsideWindow, .quota, .notIdle]
}

/// What a group may start under the current world.
enum GroupStatus: Sendable {
    /// Every tier (riders only while the link is awake or not costly).
    case open
    /// Only jobs past their deadline with `run`.
    case overdueOnly
    case blocked

    init(_ failing: ConditionSet) {
        if failing.rawValue & ConditionSet.hard.rawValue != 0 {
            self = .blocked
        } else if failing.rawValue == 0 {
            self = .open
        } else {
            self = .overdueOnly
        }
    }

    func allows(tier: UInt8, ridersAllowed: Bool) -> Bool {
        switch self {
        case .blocked: false
        case .overdueOnly: tier == PoolItem.overdue
        case .open: tier < PoolItem.rider || ridersAllowed
        }
    }
}

/// Metered bytes used per local day, by class and by owner.
struct MeteredUsage: Sendable {
    var day = Int.min
    var byClass: [String: Int64] = [:]
    var byOwner: [OwnerID: Int64] = [:]

    mutating func roll(to today: Int) {
        if today != day {
            day = today
            byClass.removeAll()
            byOwner.removeAll()
        }
    }
}

/// A queued job stopped earlier on lost conditions: it starts only once they have held for
/// `holdDown` seconds without a break (`heldSince` is when they last began to hold; NaN while
/// they fail).
struct HeldJob: Sendable {
    var holdDown: Double
    var heldSince = Double.nan
}
