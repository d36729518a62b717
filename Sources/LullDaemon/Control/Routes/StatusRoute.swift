import LullAPI
import LullCore
import LullSensors

/// `GET /v1/status`: the daemon, its limits and world, and the caller's job counts.
extension ControlRouter {
    func status(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let counts = try await store.countsByState(owner: request.peer.isAdmin ? nil : request.peer.owner)
        var jobs: [String: Int] = [:]
        for state in JobState.allCases { jobs[state.rawValue] = counts[state] ?? 0 }
        let usage = ProcessUsage.current()
        let view = StatusView(
            version: info.version,
            pid: info.pid,
            startedAt: info.startedAt,
            uptimeSeconds: clock.now().timeIntervalSince(info.startedAt),
            socket: info.socketPath,
            stateDir: info.stateDirectory,
            jobs: jobs,
            running: request.peer.isAdmin ? await dispatcher.runningCount : jobs[JobState.running.rawValue] ?? 0,
            limits: LimitsView(
                maxConcurrent: await dispatcher.currentPolicy.maxConcurrent.value,
                maxRequestBytes: validator.limits.maxRequestBytes,
                maxPushBodyBytes: validator.limits.maxPushBodyBytes,
                maxBatchJobs: validator.limits.maxBatchJobs,
                maxQueuedPerOwner: validator.limits.maxQueuedPerOwner
            ),
            process: ProcessView(rssBytes: usage.rssBytes, cpuSeconds: usage.cpuSeconds),
            world: WorldView(await dispatcher.currentWorld),
            sample: SampleView(await samples.latest()),
            lastEventSeq: hub.latest,
            stateDirMode: StateDirectory.mode(of: info.stateDirectory)
        )
        return .encode(.ok, view)
    }
}
