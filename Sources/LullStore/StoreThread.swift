import Foundation

/// A thread of the store's own, for work that blocks in SQLite (commits, checkpoints) and so may
/// not run on an event loop or in the cooperative pool. It sleeps on `condition` between jobs,
/// and its owner stops it and waits for it as the owner goes away, so the connection it used is
/// closed by the time the store is: a store reopened on the same file right after finds it closed.
final class StoreThread: @unchecked Sendable {
    /// Guards `stopping` and, by the owner's choice, the state it shares with the body.
    let condition: NSCondition
    /// Set, with `condition` held, when the owner goes away; the body then ends.
    private(set) var stopping = false
    private var finished = false
    private var thread: pthread_t?

    /// Starts `body` on a new thread named `name`. The body waits on `condition` for its work,
    /// returns once it finds `stopping`, and the thread is finished when it returns.
    init(name: String, condition: NSCondition = NSCondition(), body: @escaping @Sendable (StoreThread) -> Void) {
        self.condition = condition
        let thread = Thread { [self] in
            // Named from inside: set before `start()`, the name does not reach the kernel on Linux.
            Thread.current.name = name
            condition.lock()
            self.thread = pthread_self()
            condition.unlock()
            body(self)
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Tells the body to stop and waits until it has returned. On the thread itself (its owner
    /// released by the body's last job) it cannot wait for itself: the body ends after that job.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        let onThread = thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        while !finished && !onThread { condition.wait() }
        condition.unlock()
    }
}
