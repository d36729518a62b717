import Foundation

/// How much the next decision depends on pressure. Reading pressure costs a few file reads
/// and sampling it costs wake-ups, so the daemon does either only when a job's start hangs on it.
public struct PressureDependence: Sendable, Equatable {
    /// Some ready job is held by nothing but its pressure limits, or could start if pressure
    /// allows: the decision must see a fresh reading.
    public var consulted: Bool
    /// Some ready job is held by pressure alone, or a running job would be stopped by pressure:
    /// keep sampling, so the one starts when pressure falls and the other stops when it rises.
    public var holding: Bool

    public static let none = PressureDependence(consulted: false, holding: false)
}

extension JobScheduler {
    /// Whether pressure decides anything for the ready or running jobs under `world`:
    /// O(groups + buckets + running).
    public func pressureDependence(world: WorldSnapshot, now date: Date) -> PressureDependence {
        let now = date.timeIntervalSinceReferenceDate
        let pressureBits = Self.pressureConditions
        var readyInGroup = [Int](repeating: 0, count: groups.count)
        for b in buckets.indices where buckets[b].ready > 0 { readyInGroup[bucketInfo[b].group] += buckets[b].ready }
        var dependence = PressureDependence.none
        for g in groups.indices where readyInGroup[g] > 0 {
            let rule = groupRules[g]
            guard !rule.maxCPU.isNaN || !rule.maxMemory.isNaN else { continue }
            let failing = conditions(ofGroup: g, world: world, now: now)
            guard failing.subtracting(pressureBits).isEmpty else { continue }
            dependence.consulted = true
            if !failing.isEmpty { dependence.holding = true }
        }
        // A running job of a class that pressure stops: nothing else asks for readings while it
        // runs, and without them a rise in pressure would never stop it.
        if running.values.contains(where: { !$0.stopping && stoppedByPressure(policy.classes[$0.classIndex]) }) {
            dependence = PressureDependence(consulted: true, holding: true)
        }
        return dependence
    }

    private func stoppedByPressure(_ cls: JobClassPolicy) -> Bool {
        cls.onConditionsLost == .stop && cls.stopOnPressure
            && (cls.maxCPUPressure != nil || cls.maxMemoryPressure != nil)
    }
}
