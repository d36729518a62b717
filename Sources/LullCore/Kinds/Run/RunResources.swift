/// The resource controls of a run job that only a systemd unit can enforce: its unit gets
/// `CPUWeight=`, `MemoryMax=`, `IOWeight=` and `TasksMax=`. nil leaves a control to the class
/// default, then to systemd's. Wire names: `cpu_weight`, `memory_max`, `io_weight`, `tasks_max`.
public struct RunResources: Sendable, Equatable, Codable {
    /// Relative CPU share against other units, 1 to 10000 (systemd's default is 100).
    public var cpuWeight: Int?
    /// Bytes of memory the command's processes may use together before the kernel reclaims
    /// and, past it, kills them; at least 1 MiB.
    public var memoryMax: Int64?
    /// Relative I/O share against other units, 1 to 10000 (systemd's default is 100).
    public var ioWeight: Int?
    /// Most processes and threads the command may have at once, 1 to 4194304.
    public var tasksMax: Int?

    public static let weightRange = 1...10_000
    public static let memoryMaxMinimum: Int64 = 1 << 20
    /// The kernel's `PID_MAX_LIMIT`: no more tasks can exist.
    public static let tasksMaxRange = 1...4_194_304

    public init(cpuWeight: Int? = nil, memoryMax: Int64? = nil, ioWeight: Int? = nil, tasksMax: Int? = nil) {
        self.cpuWeight = cpuWeight
        self.memoryMax = memoryMax
        self.ioWeight = ioWeight
        self.tasksMax = tasksMax
    }

    /// The wire names of the controls, in wire order.
    public static let fields = ["cpu_weight", "memory_max", "io_weight", "tasks_max"]

    public var isEmpty: Bool { values.isEmpty }

    /// The cgroup v2 controller that enforces the control named `field`.
    public static func controller(of field: String) -> String {
        switch field {
        case "cpu_weight": "cpu"
        case "memory_max": "memory"
        case "io_weight": "io"
        default: "pids"
        }
    }

    /// The controls given, by wire name, with their values, in wire order.
    public var values: [(field: String, value: Int64)] {
        [
            ("cpu_weight", cpuWeight.map(Int64.init)), ("memory_max", memoryMax),
            ("io_weight", ioWeight.map(Int64.init)), ("tasks_max", tasksMax.map(Int64.init)),
        ].compactMap { field, value in value.map { (field, $0) } }
    }

    /// These controls, each one not given taken from `defaults` (a class's): the job's own value
    /// replaces its class's.
    public func merged(over defaults: RunResources) -> RunResources {
        RunResources(
            cpuWeight: cpuWeight ?? defaults.cpuWeight,
            memoryMax: memoryMax ?? defaults.memoryMax,
            ioWeight: ioWeight ?? defaults.ioWeight,
            tasksMax: tasksMax ?? defaults.tasksMax
        )
    }

    /// nil when empty: a job that gives none stores and shows none.
    public var nonEmpty: RunResources? { isEmpty ? nil : self }

    /// What is wrong with the value given for `field` (a wire name), or nil when it is in range.
    /// Shared by submissions and the config's class keys.
    public static func problem(field: String, value: Int64) -> String? {
        switch field {
        case "cpu_weight", "io_weight":
            weightRange.contains(Int(clamping: value))
                ? nil
                : "\(field) is \(value); give a weight from \(weightRange.lowerBound) to \(weightRange.upperBound)"
        case "memory_max":
            value >= memoryMaxMinimum
                ? nil : "\(field) is \(value); give at least \(memoryMaxMinimum) bytes (1 MiB)"
        case "tasks_max":
            tasksMaxRange.contains(Int(clamping: value))
                ? nil
                : "\(field) is \(value); give a count from \(tasksMaxRange.lowerBound) to \(tasksMaxRange.upperBound)"
        default: nil
        }
    }

    /// Each control given is in its range; the error names the first that is not.
    public func validate() throws(ValidationError) {
        for (field, value) in values {
            if let problem = Self.problem(field: field, value: value) {
                throw ValidationError(.invalidValue, field: field, problem)
            }
        }
    }

    /// Sets the control named `field` (a wire name); false for a name that is not one.
    public mutating func set(_ field: String, to value: Int64) -> Bool {
        switch field {
        case "cpu_weight": cpuWeight = Int(clamping: value)
        case "memory_max": memoryMax = value
        case "io_weight": ioWeight = Int(clamping: value)
        case "tasks_max": tasksMax = Int(clamping: value)
        default: return false
        }
        return true
    }
}
