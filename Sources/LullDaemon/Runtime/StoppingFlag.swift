import Synchronization

/// Raised once the daemon stops. Writes that wait for the store give up then, and only then: a
/// job whose change is not written is requeued at the next start, as after a crash, whereas a
/// running daemon that gave up would leave the job out of its queue until a restart.
final class StoppingFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var raised: Bool { flag.load(ordering: .acquiring) }

    func raise() { flag.store(true, ordering: .releasing) }
}
