import Foundation

/// `requires_idle`: logind says whether someone uses the machine; the scheduler decides whether
/// it has been idle long enough (`[sensors] idle_after`), since that needs its clock.
extension JobScheduler {
    /// When an idle machine has been idle for `idle_after` (on the time line); nil while someone
    /// uses it or nobody can tell.
    func idleReached(_ world: WorldSnapshot) -> Double? {
        world.idle.since.map { $0.timeIntervalSinceReferenceDate + policy.idleAfter.value }
    }

    /// Whether the machine counts as idle at `now`. Unknown counts as not idle: a job that
    /// waits for nobody to be there must not start on a guess.
    func isIdle(_ world: WorldSnapshot, now: Double) -> Bool {
        guard let reached = idleReached(world) else { return false }
        return reached <= now
    }

    /// What the scheduler sees of idleness, in words, and when it will be idle long enough.
    func idleSeen(_ world: WorldSnapshot, now: Double) -> (seen: String, until: Date?) {
        let idle = world.idle
        switch idle.state {
        case .unknown:
            return ("idle unknown: \(idle.source)", nil)
        case .active:
            return ("user active (\(idle.source))", nil)
        case .idle(let since):
            let limit = policy.idleAfter
            var seen =
                "idle for \(Self.number(max(0, now - since.timeIntervalSinceReferenceDate).rounded(.down))) s"
                + " < idle_after \(Self.number(limit.value)) s"
            if let origin = limit.origin { seen += " (\(origin.location))" }
            return (seen, idleReached(world).map { Date(timeIntervalSinceReferenceDate: $0) })
        }
    }
}
