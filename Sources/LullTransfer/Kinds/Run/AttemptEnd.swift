import Synchronization

/// Where an attempt's outcome is handed to the task awaiting it, once: by the attempt's thread
/// when it ends, or earlier by a cancellation or the total timeout while the thread is still
/// stuck before the start (a hung mount), which leaves the thread behind to end by itself.
final class AttemptEnd<Outcome: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Outcome, Never>?)
        case pending(Outcome)
        case handedOver
    }

    private let state = Mutex(State.waiting(nil))

    /// Suspends until the first `finish`.
    func outcome() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready: Outcome? = state.withLock { state in
                switch state {
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                case .pending(let outcome):
                    state = .handedOver
                    return outcome
                case .handedOver:
                    preconditionFailure("an attempt's outcome is awaited once")
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Hands `outcome` over if none was; a later one is dropped.
    func finish(_ outcome: Outcome) {
        let waiting: CheckedContinuation<Outcome, Never>? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return nil }
            state = continuation == nil ? .pending(outcome) : .handedOver
            return continuation
        }
        waiting?.resume(returning: outcome)
    }
}
