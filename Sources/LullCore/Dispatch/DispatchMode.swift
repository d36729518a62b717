/// Whether the dispatcher starts jobs, and why not.
public enum DispatchMode: Sendable, Equatable {
    case accepting
    /// The queue is being read back from the store: a sensor change must not start jobs while
    /// only part of it is loaded (lower-priority ones could go ahead of unread ones).
    case restoring
    /// The machine is about to sleep: running attempts were checkpointed and wait in the queue.
    case sleeping
    /// The daemon is stopping.
    case stopping
}
