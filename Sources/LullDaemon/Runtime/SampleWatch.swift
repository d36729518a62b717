import Foundation
import LullAPI
import LullCore
import LullSensors

/// Serves the sampler's history to people watching. Each `GET /v1/samples` renews a lease that
/// keeps the sampler at its busy interval; when nobody has asked for `lease` the claim is given
/// back and sampling stops (unless jobs wait on pressure). `status` only takes one sample when
/// the last is stale, without a lease.
actor SampleWatch {
    private let sampler: Sampler
    private let lease: Duration
    private var demand: Sampler.Demand?
    private var expiry: ContinuousClock.Instant = .now
    private var expiryTask: Task<Void, Never>?
    private let sleeper: any Sleeper

    init(sampler: Sampler, lease: Duration = .seconds(30), sleeper: any Sleeper) {
        self.sampler = sampler
        self.sleeper = sleeper
        self.lease = lease
    }

    var interval: Duration { sampler.configuration.busyInterval }

    /// Whether the sampling loop runs now, and how many timed samples it has taken (metrics).
    func activity() async -> (running: Bool, ticks: Int) {
        (await sampler.isRunning, await sampler.tickCount)
    }

    /// The history, oldest first, renewing the watch lease.
    func samples() async -> [Sample] {
        await renew()
        return await sampler.samples()
    }

    /// The latest sample, taken now if the last one is older than the busy interval.
    func latest() async -> Sample {
        if let last = await sampler.latest, Date().timeIntervalSince(last.time) < interval.timeInterval {
            return last
        }
        return await sampler.sampleNow()
    }

    func stop() async {
        expiryTask?.cancel()
        expiryTask = nil
        if let demand { await sampler.release(demand) }
        demand = nil
    }

    private func renew() async {
        expiry = .now + lease
        guard demand == nil else { return }
        demand = await sampler.acquire(.watch)
        if await sampler.latest == nil { await sampler.sampleNow() }
        expiryTask = Task { await self.releaseWhenExpired() }
    }

    private func releaseWhenExpired() async {
        while !Task.isCancelled {
            let now = ContinuousClock.now
            if now >= expiry { break }
            do { try await sleeper.sleep(until: expiry) } catch { return }
        }
        if let demand { await sampler.release(demand) }
        demand = nil
        expiryTask = nil
    }
}
