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
    /// Set before the first suspension of `renew`: requests arriving while the claim is being
    /// made must not make claims of their own, which only the last would ever give back.
    private var watched = false
    /// When the lease lapses, on `clock`.
    private var expiry: Duration = .zero
    private var expiryTask: Task<Void, Never>?
    private let sleeper: any Sleeper
    private let clock: any MonotonicClock

    init(
        sampler: Sampler,
        lease: Duration = .seconds(30),
        sleeper: any Sleeper,
        clock: any MonotonicClock = SystemMonotonicClock()
    ) {
        self.sampler = sampler
        self.sleeper = sleeper
        self.clock = clock
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
        await giveBack()
    }

    private func renew() async {
        expiry = clock.elapsed() + lease
        guard !watched else { return }
        watched = true
        demand = await sampler.acquire(.watch)
        if await sampler.latest == nil { await sampler.sampleNow() }
        expiryTask = Task { await self.releaseWhenExpired() }
    }

    private func releaseWhenExpired() async {
        while !Task.isCancelled {
            let now = clock.elapsed()
            if now >= expiry { break }
            do { try await sleeper.sleep(for: expiry - now) } catch { return }
        }
        expiryTask = nil
        await giveBack()
    }

    /// Clears the claim before the release suspends, so a request meanwhile makes a new one.
    private func giveBack() async {
        let held = demand
        demand = nil
        watched = false
        if let held { await sampler.release(held) }
    }
}
