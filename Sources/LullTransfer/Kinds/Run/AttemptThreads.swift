import Foundation

/// The threads run attempts block on, from spawn to reap (`ProcessSupervisor`). A thread whose
/// attempt has ended waits for the next one, up to `idleLimit` of them, so a queue of short
/// commands does not make a thread, and map and unmap its stack, per job. Waiting threads sleep
/// on a condition variable: no timer wakes them.
final class AttemptThreads: @unchecked Sendable {
    let idleLimit: Int
    /// Guards `queue` and `idle`.
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    /// Threads waiting for work.
    private var idle = 0

    init(idleLimit: Int = 16) {
        self.idleLimit = idleLimit
    }

    /// Threads waiting for work now.
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return idle
    }

    /// Runs `work` on a waiting thread, or on a new one when there are fewer waiting than work.
    func run(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(work)
        let start = queue.count > idle
        condition.signal()
        condition.unlock()
        guard start else { return }
        let thread = Thread { [self] in
            // Named from inside: set before `start()`, the name does not reach the kernel on Linux.
            Thread.current.name = "lull-run"
            serve()
        }
        thread.start()
    }

    private func serve() {
        condition.lock()
        while true {
            if !queue.isEmpty {
                let work = queue.removeFirst()
                condition.unlock()
                work()
                condition.lock()
                continue
            }
            guard idle < idleLimit else { break }
            idle += 1
            while queue.isEmpty { condition.wait() }
            idle -= 1
        }
        condition.unlock()
    }
}
