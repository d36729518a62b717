import NIOCore

/// Runs a task's jobs on one NIO event loop. A connection's task prefers its channel's loop, so
/// wherever it is resumed from (the store's writer thread, an actor on another loop) it comes
/// back to the thread that owns its socket: one wake-up, no second hop to write the answer.
/// (NIO, as the global executor, would otherwise pick any loop for a resume from a foreign thread.)
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
