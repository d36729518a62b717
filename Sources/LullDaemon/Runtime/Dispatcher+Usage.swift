import Foundation
import LullCore
import NIOPosix

/// Run jobs measured while they run: once per progress interval, one reading of every running
/// command together (`UsageReportingEngine.usages()`: on the process host one pass over /proc
/// for all groups, made on NIO's thread pool so no event loop waits on it). Each reading goes to
/// the job's view and, while the job is not frozen, into a `progress` event, as a transfer's
/// bytes do. The sampler runs only while such attempts run.
extension Dispatcher {
    /// An attempt of a kind that reports usage started: it is sampled from now on.
    func startSampling(_ id: JobID) {
        usageSamples.started(id, at: .now)
        resumeSampling()
    }

    /// Starts the sampler unless it runs or there is nothing to sample (a thawed attempt).
    func resumeSampling() {
        guard usageSampler == nil, usageSamples.ids.contains(where: { !frozen.contains($0) }) else { return }
        let interval = Duration.milliseconds(Int64((max(progressInterval, 0.01) * 1000).rounded()))
        usageSampler = Task { [weak self, sleeper] in
            while true {
                do {
                    try await sleeper.sleep(for: interval)
                } catch {
                    await self?.samplerEnded()
                    return
                }
                guard let engines = await self?.samplingEngines() else { return }
                var readings: [JobID: CommandUsage] = [:]
                for engine in engines {
                    let read = try? await NIOThreadPool.singleton.runIfActive { engine.usages() }
                    readings.merge(read ?? [:]) { first, _ in first }
                }
                await self?.sampled(readings)
            }
        }
    }

    /// The engines to read, or nil when no sampled attempt runs: the sampler ends then (and a
    /// start after this makes a new one).
    private func samplingEngines() -> [any UsageReportingEngine]? {
        // A frozen (paused) command uses nothing; while every sampled one is, the sampler
        // sleeps for good instead of waking each interval, until a resume starts it again.
        guard usageSamples.ids.contains(where: { !frozen.contains($0) }) else {
            usageSampler = nil
            return nil
        }
        return usageKinds.compactMap { engines[$0] as? any UsageReportingEngine }
    }

    private func samplerEnded() { usageSampler = nil }

    private func sampled(_ readings: [JobID: CommandUsage]) {
        let (at, time) = (ContinuousClock.now, clock.now())
        var updates: [JobUpdate] = []
        for (id, reading) in readings where running[id] != nil {
            guard let usage = usageSamples.record(reading, of: id, at: at), !frozen.contains(id) else { continue }
            updates.append(
                JobUpdate(id: id, from: [.running], to: .running, event: .progress, time: time, usage: usage)
            )
        }
        guard !updates.isEmpty else { return }
        // Written together, so the group committer makes one commit of them.
        Task { [store] in
            await withTaskGroup(of: Void.self) { group in
                for update in updates { group.addTask { _ = try? await store.apply(update) } }
            }
        }
    }

    /// Resident memory of the running commands at their last readings (`lull_run_memory_bytes`).
    var runningCommandMemory: Int64 { usageSamples.memoryBytes }
}
