import CoreMetrics
import Foundation
import LullCore
import Prometheus

/// The daemon's metrics through swift-metrics, exported in the Prometheus text format by
/// `GET /metrics`. Counters move as things happen; gauges are set from a snapshot at scrape
/// time, so an idle daemon does no metrics work at all. The factory is this instance's own
/// (no global bootstrap), so tests and several daemons in one process do not share numbers.
final class DaemonMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    /// Bytes counters by direction and link, made once: they move on every chunk of every
    /// transfer, where looking them up in the registry each time would cost a lock and an allocation.
    private let bytes: [Direction: [LinkType: CoreMetrics.Counter]]

    init() {
        let factory = PrometheusMetricsFactory(registry: registry)
        self.factory = factory
        var bytes: [Direction: [LinkType: CoreMetrics.Counter]] = [:]
        for direction in Direction.allCases {
            for link in LinkType.allCases {
                bytes[direction, default: [:]][link] = CoreMetrics.Counter(
                    label: "lull_transfer_bytes_total", dimensions: [("direction", direction.rawValue), ("link", link.rawValue)],
                    factory: factory)
            }
        }
        self.bytes = bytes
    }

    enum Direction: String, Sendable, CaseIterable {
        case down, up
    }

    func jobStarted(kind: JobKind, jobClass: String) {
        CoreMetrics.Counter(label: "lull_jobs_started_total", dimensions: [("kind", kind.rawValue), ("class", jobClass)], factory: factory)
            .increment()
    }

    /// `outcome`: succeeded, failed, retrying, cancelled, expired. `reason`: the failure code,
    /// `not_modified`, `deadline`, or "none".
    func jobFinished(kind: JobKind, outcome: String, reason: String?) {
        CoreMetrics.Counter(
            label: "lull_jobs_finished_total",
            dimensions: [("kind", kind.rawValue), ("outcome", outcome), ("reason", reason ?? "none")], factory: factory
        ).increment()
    }

    func transferred(_ bytes: Int64, _ direction: Direction, over link: LinkType) {
        guard bytes > 0 else { return }
        self.bytes[direction]?[link]?.increment(by: bytes)
    }

    /// Sets the gauges from `snapshot` and renders everything.
    func render(_ snapshot: MetricsSnapshot) -> [UInt8] {
        for (key, count) in snapshot.jobs {
            gauge("lull_jobs", [("class", key.jobClass), ("state", key.state.rawValue)]).record(count)
        }
        gauge("lull_running_jobs").record(snapshot.running)
        let world = snapshot.world
        gauge("lull_on_battery").record(world.power.onBattery ? 1 : 0)
        if let battery = world.power.batteryPercent { gauge("lull_battery_percent").record(battery) }
        gauge("lull_low_power").record(world.power.lowPower ? 1 : 0)
        for connectivity in NetworkState.Connectivity.allCases {
            gauge("lull_network_connectivity", [("state", connectivity.rawValue)])
                .record(world.network.connectivity == connectivity ? 1 : 0)
        }
        gauge("lull_network_metered").record(world.network.metered ? 1 : 0)
        gauge("lull_network_cellular").record(world.network.cellular ? 1 : 0)
        for (resource, value) in [("cpu", world.pressure.cpu), ("memory", world.pressure.memory), ("io", world.pressure.io)] {
            if let value { gauge("lull_pressure_some_avg10", [("resource", resource)]).record(value) }
        }
        let statistics = snapshot.scheduling
        gauge("lull_scheduler_decisions").record(statistics.decisions)
        gauge("lull_scheduler_coalesced_starts").record(statistics.coalesced)
        gauge("lull_scheduler_link_wakeups").record(statistics.linkWakeups)
        gauge("lull_sampler_running").record(snapshot.samplerRunning ? 1 : 0)
        gauge("lull_sampler_samples").record(snapshot.samplerTicks)
        gauge("lull_process_resident_memory_bytes").record(snapshot.rssBytes)
        gauge("lull_process_cpu_seconds").record(snapshot.cpuSeconds)
        return registry.emitToBuffer()
    }

    private func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: label, dimensions: dimensions, factory: factory)
    }
}

/// What `/metrics` reads at scrape time.
struct MetricsSnapshot: Sendable {
    /// Every (class, state) pair the daemon knows, zeros included, so series do not vanish.
    var jobs: [JobCountKey: Int]
    var running: Int
    var world: WorldSnapshot
    var scheduling: SchedulingStatistics
    /// The sampler's loop exists (someone watches or jobs wait on pressure) and its timed samples so far.
    var samplerRunning: Bool
    var samplerTicks: Int
    var rssBytes: Int64
    var cpuSeconds: Double
}
