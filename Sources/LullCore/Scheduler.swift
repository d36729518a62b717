/// Decides which queued jobs start now. Pure: it sees the ready queue and what is running,
/// nothing else, so every decision can be replayed in a test.
public struct Scheduler: Sendable {
    public var maxConcurrent: Int

    public init(maxConcurrent: Int) {
        self.maxConcurrent = maxConcurrent
    }

    /// Takes the jobs to start from the front of `ready`, as many as there are free slots.
    public func jobsToStart(from ready: inout ReadyQueue, running: Int) -> [JobID] {
        var started: [JobID] = []
        var free = maxConcurrent - running
        while free > 0, let id = ready.popFirst() {
            started.append(id)
            free -= 1
        }
        return started
    }
}
