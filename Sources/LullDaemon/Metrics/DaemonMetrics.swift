import LullCore
import Prometheus
import Synchronization

/// The daemon's metrics, exported in the Prometheus text format by `GET /metrics`. Counters of
/// events move as things happen; everything else is set from a snapshot at scrape time, so an
/// idle daemon does no metrics work at all. The registry is this instance's own (no global
/// one), so tests and several daemons in one process do not share numbers.
///
/// The registry is used directly rather than through swift-metrics' factory: only its own
/// `make…(descriptor:)` calls carry the `# HELP` text of a family.
final class DaemonMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// Bytes counters by direction and link, made once: they move on every chunk of every
    /// transfer, where looking them up in the registry each time would cost a lock and an allocation.
    private let bytes: [Direction: [LinkType: Counter]]
    /// Held while a scrape sets the values it reads and renders them, so that two scrapes at
    /// once never show a counter between its reset and its new value.
    private let scrape = Mutex(())

    init() {
        var bytes: [Direction: [LinkType: Counter]] = [:]
        for direction in Direction.allCases {
            for link in LinkType.allCases {
                bytes[direction, default: [:]][link] = registry.makeCounter(
                    descriptor: MetricFamily.transferBytes.descriptor,
                    labels: [("direction", direction.rawValue), ("link", link.rawValue)]
                )
            }
        }
        self.bytes = bytes
    }

    enum Direction: String, Sendable, CaseIterable {
        case down, up
    }

    func jobStarted(kind: JobKind, jobClass: String) {
        counter(.jobsStarted, [("kind", kind.rawValue), ("class", jobClass)]).increment()
    }

    /// `outcome`: succeeded, failed, retrying, cancelled, expired. `reason`: the failure code for
    /// failed and retrying, else `not_modified`, `deadline`, or nil.
    func jobFinished(kind: JobKind, outcome: String, reason: String?) {
        let failed = outcome == "failed"
        let code = failed || outcome == "retrying" ? FailureCodeLabel.value(reason ?? "") : nil
        counter(.jobsFinished, [("kind", kind.rawValue), ("outcome", outcome), ("reason", code ?? reason ?? "none")])
            .increment()
        if failed, let code {
            counter(.jobsFailed, [("kind", kind.rawValue), ("code", code)]).increment()
        }
    }

    /// `reason`: the waiting reason's code of the condition that lapsed (`on_battery`, `metered`...).
    func jobStopped(kind: JobKind, reason: WaitingReason.Code) {
        counter(.jobStops, [("kind", kind.rawValue), ("reason", reason.rawValue)]).increment()
    }

    /// A run job's attempt ended: what its command used, from its result, or from its last
    /// sample when it was stopped before it could end.
    func runAttemptEnded(jobClass: String, result: JobResult) {
        guard let cpu = result.cpuSeconds else { return }
        runUsed(jobClass: jobClass, cpuSeconds: cpu, read: result.ioReadBytes, written: result.ioWriteBytes)
    }

    func runAttemptEnded(jobClass: String, usage: CommandUsage) {
        runUsed(jobClass: jobClass, cpuSeconds: usage.cpuSeconds, read: usage.ioReadBytes, written: usage.ioWriteBytes)
    }

    private func runUsed(jobClass: String, cpuSeconds: Double, read: Int64?, written: Int64?) {
        let labels = [("class", jobClass)]
        counter(.runCPUSeconds, labels).increment(by: max(0, cpuSeconds))
        // Made even at zero, so each class's series exist once it has run a command.
        counter(.runIOReadBytes, labels).increment(by: max(0, read ?? 0))
        counter(.runIOWriteBytes, labels).increment(by: max(0, written ?? 0))
    }

    func transferred(_ bytes: Int64, _ direction: Direction, over link: LinkType) {
        guard bytes > 0 else { return }
        self.bytes[direction]?[link]?.increment(by: bytes)
    }

    /// Sets the scrape-time values from `snapshot` and renders everything.
    func render(_ snapshot: MetricsSnapshot) -> [UInt8] {
        scrape.withLock { _ in
            record(snapshot)
            return registry.emitToBuffer()
        }
    }

    private func record(_ snapshot: MetricsSnapshot) {
        for (key, count) in snapshot.jobs {
            gauge(.jobs, [("class", key.jobClass), ("state", key.state.rawValue)]).set(to: Double(count))
        }
        gauge(.runningJobs).set(to: Double(snapshot.running))
        gauge(.runMemory).set(to: Double(snapshot.runMemoryBytes))

        let world = snapshot.world
        gauge(.onBattery).set(to: world.power.onBattery ? 1 : 0)
        if let battery = world.power.batteryPercent { gauge(.batteryCharge).set(to: battery / 100) }
        gauge(.lowPower).set(to: world.power.lowPower ? 1 : 0)
        for connectivity in NetworkState.Connectivity.allCases {
            gauge(.networkConnectivity, [("state", connectivity.rawValue)])
                .set(to: world.network.connectivity == connectivity ? 1 : 0)
        }
        gauge(.networkMetered).set(to: world.network.metered ? 1 : 0)
        gauge(.networkCellular).set(to: world.network.cellular ? 1 : 0)
        for (resource, value) in [
            ("cpu", world.pressure.cpu), ("memory", world.pressure.memory), ("io", world.pressure.io),
        ] {
            if let value { gauge(.pressure, [("resource", resource)]).set(to: value / 100) }
        }

        let statistics = snapshot.scheduling
        counter(.schedulerDecisions).set(to: statistics.decisions)
        counter(.schedulerCoalescedStarts).set(to: statistics.coalesced)
        counter(.schedulerLinkWakeups).set(to: statistics.linkWakeups)
        gauge(.samplerRunning).set(to: snapshot.samplerRunning ? 1 : 0)
        counter(.samplerSamples).set(to: snapshot.samplerTicks)
        gauge(.buildInfo, [("version", LullVersion.current)]).set(to: 1)

        let process = snapshot.process
        counter(.processCPU).set(to: process.cpuSeconds)
        gauge(.processResidentMemory).set(to: Double(process.residentBytes))
        gauge(.processVirtualMemory).set(to: Double(process.virtualBytes))
        gauge(.processStartTime).set(to: process.startTime)
        gauge(.processOpenFDs).set(to: Double(process.openFDs))
        gauge(.processMaxFDs).set(to: Double(process.maxFDs))
    }

    private func counter(_ family: MetricFamily, _ labels: [(String, String)] = []) -> Counter {
        registry.makeCounter(descriptor: family.descriptor, labels: labels)
    }

    private func gauge(_ family: MetricFamily, _ labels: [(String, String)] = []) -> Gauge {
        registry.makeGauge(descriptor: family.descriptor, labels: labels)
    }
}

extension Counter {
    /// A count kept elsewhere (the scheduler's, the sampler's, the kernel's), copied in at scrape
    /// time. Only a scrape, under `DaemonMetrics.scrape`, writes these counters.
    fileprivate func set(to count: Int) {
        reset()
        increment(by: Int64(max(count, 0)))
    }

    fileprivate func set(to value: Double) {
        reset()
        increment(by: max(value, 0))
    }
}
