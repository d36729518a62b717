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
    /// Dropped before the thread counts as finished, so whatever the body holds (a connection,
    /// another store thread's owner) is released by the time `stop` returns, not at thread exit.
    private var body: (@Sendable (StoreThread) -> Void)?

    /// Starts `body` on a new thread named `name`. The body waits on `condition` for its work,
    /// returns once it finds `stopping`, and the thread is finished when it returns.
    init(name: String, condition: NSCondition = NSCondition(), body: @escaping @Sendable (StoreThread) -> Void) {
        self.condition = condition
        self.body = body
        let thread = Thread { [self] in
            // Named from inside: set before `start()`, the name does not reach the kernel on Linux.
            Thread.current.name = name
            runBody()
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Runs the body and lets go of it: on return nothing of it is left on this thread.
    private func runBody() {
        condition.lock()
        self.thread = pthread_self()
        let body = self.body
        self.body = nil
        condition.unlock()
        body?(self)
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
