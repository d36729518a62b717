import LullCore
import LullSensors
import Synchronization

/// The dispatcher's access to pressure: a fresh reading when a decision needs one, and a say
/// in whether the sampler runs. A seam so scheduling tests can script pressure.
protocol PressureGauge: Sendable {
    /// Pressure read now.
    func read() -> PressureState
    /// Jobs are held by pressure alone (`true`) or no longer (`false`): while held, the sampler
    /// runs and its readings reach the dispatcher, so the jobs start when pressure falls.
    func setHolding(_ holding: Bool)
}

/// Pressure from the `Sampler`: PSI files read on demand, the sampling loop claimed only while
/// jobs wait on pressure. With no such job there is no loop and no wake-up.
final class SamplerPressureGauge: PressureGauge {
    private let procRoot: String
    private let holding = Mutex(false)
    private let requests: AsyncStream<Bool>.Continuation
    private let worker: Task<Void, Never>

    init(sampler: Sampler, procRoot: String) {
        self.procRoot = procRoot
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        requests = continuation
        // One consumer applies the changes in the order they were asked for.
        worker = Task {
            var demand: Sampler.Demand?
            for await wanted in stream {
                if wanted, demand == nil {
                    demand = await sampler.acquire(.pressureWait)
                } else if !wanted, let held = demand {
                    await sampler.release(held)
                    demand = nil
                }
            }
            if let demand { await sampler.release(demand) }
        }
    }

    func read() -> PressureState {
        Sampler.currentPressure(procRoot: procRoot)
    }

    func setHolding(_ wanted: Bool) {
        let changed = holding.withLock { current in
            defer { current = wanted }
            return current != wanted
        }
        if changed { requests.yield(wanted) }
    }

    /// Releases the sampler for good.
    func stop() async {
        requests.finish()
        await worker.value
    }
}
