import LullCore
import Synchronization

/// The total timeout of a command run as a transient unit, kept by lulld. A unit's
/// `RuntimeMaxSec=` would be the manager's to keep, but systemd counts it while the unit is
/// frozen and cannot move it once the unit runs: a command paused past it was killed at its
/// resume. Like the process host's deadline, this one stops while the unit is frozen.
final class UnitDeadline: Sendable {
    private let deadline: Double
    private let paused = Mutex(PausedTime())
    private let thaws: AsyncStream<Void>
    private let thaw: AsyncStream<Void>.Continuation

    /// - Parameter deadline: on `ProcessSupervisor.now()`'s clock.
    init(at deadline: Double) {
        self.deadline = deadline
        (thaws, thaw) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func froze() { paused.withLock { $0.froze(at: ProcessSupervisor.now()) } }

    func thawed() {
        paused.withLock { $0.thawed(at: ProcessSupervisor.now()) }
        thaw.yield()
    }

    /// Returns once the deadline has passed while the unit was not frozen; throws when the
    /// task is cancelled. Sleeps until the deadline, or while frozen until the next thaw. One
    /// caller only.
    func passed(sleeper: any Sleeper) async throws {
        var thawed = thaws.makeAsyncIterator()
        while true {
            try Task.checkCancellation()
            guard let due = paused.withLock({ $0.due(deadline) }) else {
                _ = await thawed.next()
                continue
            }
            let left = due - ProcessSupervisor.now()
            if left <= 0 { return }
            try await sleeper.sleep(for: .seconds(left))
        }
    }
}
