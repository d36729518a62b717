import Foundation
import LullCore

/// `GET /metrics`.
extension ControlRouter {
    /// Prometheus text format; aggregate numbers only, so any client of the socket may read them.
    func metricsText(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        // Every state of every class the policy or the store knows gets a value, zero or not: a
        // series left out keeps its last value in the registry (a class a reload removed would
        // go on reporting its queued job after the job was cancelled).
        let counts = try await store.countsByClassAndState()
        var classes = Set(await dispatcher.currentPolicy.classes.map(\.name))
        classes.formUnion(counts.keys.map(\.jobClass))
        var jobs: [JobCountKey: Int] = [:]
        for name in classes {
            for state in JobState.allCases { jobs[JobCountKey(jobClass: name, state: state)] = 0 }
        }
        for (key, count) in counts { jobs[key] = count }
        let sampler = await samples.activity()
        let snapshot = MetricsSnapshot(
            jobs: jobs,
            running: await dispatcher.runningCount,
            runMemoryBytes: await dispatcher.runningCommandMemory,
            world: await dispatcher.currentWorld,
            scheduling: await dispatcher.schedulingStatistics,
            samplerRunning: sampler.running,
            samplerTicks: sampler.ticks,
            process: .current()
        )
        return .complete(.ok, contentType: "text/plain; version=0.0.4; charset=utf-8", Data(metrics.render(snapshot)))
    }
}
