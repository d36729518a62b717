import Foundation
import LullCore
import Synchronization

/// Keeps the service manager's `STATUS=` line current without flooding it: changes are
/// coalesced and at most one line is sent per `interval`, always describing the latest state
/// (the line is computed when it is sent, not when the change happened).
final class ServiceStatus: Sendable {
    private struct State {
        var scheduled = false
        var lastSent = ContinuousClock.now - .seconds(3600)
        var lastLine = ""
    }

    private let interval: Duration
    private let sleeper: any Sleeper
    private let line: @Sendable () async -> String
    private let send: @Sendable (String) -> Void
    private let state = Mutex(State())

    init(
        interval: Duration = .seconds(1),
        sleeper: any Sleeper,
        line: @escaping @Sendable () async -> String,
        send: @escaping @Sendable (String) -> Void
    ) {
        self.interval = interval
        self.sleeper = sleeper
        self.line = line
        self.send = send
    }

    /// Something changed: a line goes out within `interval`.
    func changed() {
        let due = state.withLock { state -> ContinuousClock.Instant? in
            guard !state.scheduled else { return nil }
            state.scheduled = true
            return state.lastSent + interval
        }
        guard let due else { return }
        Task {
            try? await sleeper.sleep(until: due)
            // Cleared before computing: a change from here on schedules the next line.
            state.withLock { $0.scheduled = false }
            let text = await line()
            let fresh = state.withLock { state -> Bool in
                state.lastSent = .now
                defer { state.lastLine = text }
                return text != state.lastLine
            }
            if fresh { send(text) }
        }
    }
}
