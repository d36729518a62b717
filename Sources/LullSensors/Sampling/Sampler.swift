import Foundation
import LullCore

/// One look at the machine.
public struct Sample: Sendable, Equatable, Codable {
    public var time: Date
    public var cpuPressure: PressureReading?
    public var memoryPressure: PressureReading?
    public var ioPressure: PressureReading?
    /// Busy share of all CPUs (0–1) since the previous sample; nil for the first one.
    public var cpuUtilisation: Double?
    public var memory: MemoryInfo?
    public var load: LoadAverage?
    /// The daemon itself.
    public var process: ProcessUsage

    public init(
        time: Date,
        cpuPressure: PressureReading? = nil,
        memoryPressure: PressureReading? = nil,
        ioPressure: PressureReading? = nil,
        cpuUtilisation: Double? = nil,
        memory: MemoryInfo? = nil,
        load: LoadAverage? = nil,
        process: ProcessUsage
    ) {
        self.time = time
        self.cpuPressure = cpuPressure
        self.memoryPressure = memoryPressure
        self.ioPressure = ioPressure
        self.cpuUtilisation = cpuUtilisation
        self.memory = memory
        self.load = load
        self.process = process
    }

    /// What the scheduler sees: `some avg10` per resource.
    public var pressureState: PressureState {
        Self.pressureState(cpu: cpuPressure, memory: memoryPressure, io: ioPressure)
    }

    static func pressureState(cpu: PressureReading?, memory: PressureReading?, io: PressureReading?) -> PressureState {
        let available = cpu != nil || memory != nil || io != nil
        return PressureState(
            cpu: cpu?.some.avg10,
            memory: memory?.some.avg10,
            io: io?.some.avg10,
            source: available ? "PSI /proc/pressure (avg10)" : "PSI unavailable"
        )
    }
}

/// Reads pressure, CPU, memory and load, and keeps a short history — but only while someone
/// needs it. With no demand there is no task and no timer: an idle daemon does not wake up.
///
/// Demand comes in two kinds: `.watch` (someone reads `status`/`samples` live) samples every
/// `busyInterval`; `.pressureWait` (a job waits for pressure to drop) samples every
/// `pressureWaitInterval` while the machine is busy and every `idleInterval` when it is quiet. The
/// history is a ring of `historyCapacity` samples: 10 minutes at one per second, longer when
/// samples were coarser.
public actor Sampler {
    public struct Configuration: Sendable {
        public var procRoot: String
        /// The cgroup v2 mount for the daemon's own cgroup numbers; nil to skip them.
        public var cgroupRoot: String?
        public var busyInterval: Duration
        /// A wait for pressure on a busy machine: the kernel works the PSI averages out every
        /// 2 s, so reading more often finds the same numbers.
        public var pressureWaitInterval: Duration
        public var idleInterval: Duration
        public var historyCapacity: Int
        /// The machine is "busy" when any PSI `some avg10` reaches this (percent)…
        public var busyPressurePercent: Double
        /// …or the CPU utilisation reaches this share.
        public var busyUtilisation: Double

        public init(
            procRoot: String = "/proc",
            cgroupRoot: String? = "/sys/fs/cgroup",
            busyInterval: Duration = .seconds(1),
            pressureWaitInterval: Duration = .seconds(2),
            idleInterval: Duration = .seconds(10),
            historyCapacity: Int = 600,
            busyPressurePercent: Double = 1.0,
            busyUtilisation: Double = 0.5
        ) {
            self.procRoot = procRoot
            self.cgroupRoot = cgroupRoot
            self.busyInterval = busyInterval
            self.pressureWaitInterval = pressureWaitInterval
            self.idleInterval = idleInterval
            self.historyCapacity = historyCapacity
            self.busyPressurePercent = busyPressurePercent
            self.busyUtilisation = busyUtilisation
        }
    }

    public enum Purpose: String, Sendable, Hashable {
        /// A queued job waits for pressure to fall.
        case pressureWait
        /// Someone watches the numbers (status, /v1/samples, lullctl watch).
        case watch
    }

    /// A claim on the sampler; give it back with `release(_:)`.
    public struct Demand: Sendable, Hashable {
        public let id: Int
        public let purpose: Purpose
    }

    public nonisolated let configuration: Configuration
    private let clock: any LullClock
    private let sleeper: any Sleeper
    private var demands: [Int: Purpose] = [:]
    private var nextDemandID = 0
    private var loop: Task<Void, Never>?
    private var loopInterval: Duration?
    private var history: RingBuffer<Sample>
    private var previousCPU: CPUTimes?
    /// Timer-driven samples taken since creation.
    public private(set) var tickCount = 0
    private nonisolated let pressureBroadcaster = StateBroadcaster(PressureState.unknown)
    private nonisolated let sampleBroadcaster: StateBroadcaster<Sample?> = StateBroadcaster(nil)

    /// - Parameter sleeper: how the loop waits between samples (tests may substitute a faster or
    ///   scripted one). The daemon passes its event-loop sleeper.
    public init(
        configuration: Configuration = .init(),
        clock: any LullClock = SystemClock(),
        sleeper: any Sleeper = TaskSleeper()
    ) {
        self.configuration = configuration
        self.clock = clock
        self.sleeper = sleeper
        self.history = RingBuffer(capacity: configuration.historyCapacity)
    }

    // MARK: demand

    public func acquire(_ purpose: Purpose) -> Demand {
        let demand = Demand(id: nextDemandID, purpose: purpose)
        nextDemandID += 1
        demands[demand.id] = purpose
        // Start, or restart when a watcher needs finer samples than the loop now takes.
        if loop == nil || (loopInterval.map { $0 > nextInterval() } ?? false) {
            restartLoop()
        }
        return demand
    }

    public func release(_ demand: Demand) {
        guard demands.removeValue(forKey: demand.id) != nil else { return }
        if demands.isEmpty { stopLoop() }
    }

    /// Runs `body` while holding a demand.
    public func withDemand<T: Sendable>(_ purpose: Purpose, _ body: @Sendable () async throws -> T) async rethrows -> T
    {
        let demand = acquire(purpose)
        defer { release(demand) }
        return try await body()
    }

    public var demandCount: Int { demands.count }
    /// Whether the sampling loop exists (false ⇔ no demand: no timer, no wake-ups).
    public var isRunning: Bool { loop != nil }

    // MARK: readings

    public var latest: Sample? { history.last }
    /// Oldest first, at most `historyCapacity`.
    public func samples() -> [Sample] { history.elements }

    /// Pressure as the scheduler sees it: the latest sample's, or `.unknown` before any.
    public nonisolated var pressure: PressureState { pressureBroadcaster.current }
    /// Pressure readings after this call, one per change.
    public nonisolated func pressureChanges() -> AsyncStream<PressureState> { pressureBroadcaster.changes() }
    /// Every new sample, as it is taken.
    public nonisolated func sampleStream() -> AsyncStream<Sample> {
        let upstream = sampleBroadcaster.changes()
        return AsyncStream(Sample.self, bufferingPolicy: .bufferingNewest(1)) { continuation in
            let task = Task {
                for await sample in upstream { if let sample { continuation.yield(sample) } }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Takes one sample now, whether or not the loop runs (for `status`), and records it.
    @discardableResult
    public func sampleNow() -> Sample {
        record(read())
    }

    /// Reads every source once without touching the history (pure apart from file reads).
    public nonisolated static func read(procRoot: String, cgroupRoot: String?, time: Date) -> (Sample, CPUTimes?) {
        func file(_ name: String) -> String? { SysFiles.read(SysFiles.join(procRoot, name)) }
        let cpu = file("stat").flatMap(CPUTimes.parse)
        let pressure = readPressure(procRoot: procRoot)
        let sample = Sample(
            time: time,
            cpuPressure: pressure.cpu,
            memoryPressure: pressure.memory,
            ioPressure: pressure.io,
            cpuUtilisation: nil,
            memory: file("meminfo").flatMap(MemoryInfo.parse),
            load: file("loadavg").flatMap(LoadAverage.parse),
            process: ProcessUsage.read(procRoot: procRoot, cgroupRoot: cgroupRoot)
        )
        return (sample, cpu)
    }

    /// Reads only the PSI files: what a scheduling decision needs, in three small procfs reads.
    public nonisolated static func readPressure(
        procRoot: String
    ) -> (cpu: PressureReading?, memory: PressureReading?, io: PressureReading?) {
        func reading(_ name: String) -> PressureReading? {
            SysFiles.read(SysFiles.join(procRoot, "pressure/" + name)).flatMap(PressureReading.parse)
        }
        return (reading("cpu"), reading("memory"), reading("io"))
    }

    /// Pressure as the scheduler sees it, read now.
    public nonisolated static func currentPressure(procRoot: String) -> PressureState {
        let readings = readPressure(procRoot: procRoot)
        return Sample.pressureState(cpu: readings.cpu, memory: readings.memory, io: readings.io)
    }

    // MARK: the loop

    private func read() -> Sample {
        var (sample, cpu) = Self.read(
            procRoot: configuration.procRoot,
            cgroupRoot: configuration.cgroupRoot,
            time: clock.now()
        )
        if let previousCPU, let cpu { sample.cpuUtilisation = CPUTimes.utilisation(from: previousCPU, to: cpu) }
        previousCPU = cpu
        return sample
    }

    @discardableResult
    private func record(_ sample: Sample) -> Sample {
        history.append(sample)
        pressureBroadcaster.update(sample.pressureState)
        sampleBroadcaster.update(sample)
        return sample
    }

    private func tick() {
        tickCount += 1
        record(read())
    }

    func nextInterval() -> Duration {
        if demands.values.contains(.watch) { return configuration.busyInterval }
        guard let last = history.last else { return configuration.busyInterval }
        return isBusy(last) ? configuration.pressureWaitInterval : configuration.idleInterval
    }

    private func isBusy(_ sample: Sample) -> Bool {
        let pressures = [sample.cpuPressure, sample.memoryPressure, sample.ioPressure].compactMap { $0?.some.avg10 }
        if pressures.contains(where: { $0 >= configuration.busyPressurePercent }) { return true }
        return (sample.cpuUtilisation ?? 0) >= configuration.busyUtilisation
    }

    private func restartLoop() {
        loop?.cancel()
        loop = Task { await self.run() }
    }

    private func stopLoop() {
        loop?.cancel()
        loop = nil
        loopInterval = nil
        // Utilisation across a long pause would be meaningless.
        previousCPU = nil
    }

    private func run() async {
        while !Task.isCancelled {
            tick()
            let interval = nextInterval()
            loopInterval = interval
            do { try await sleeper.sleep(for: interval) } catch { return }
        }
    }
}
