import Foundation
import Synchronization

/// Fails a transfer that has moved no bytes for `limit` seconds. The transfer calls `touch()`
/// on every chunk; a single sleeping task checks now and then and cancels the work when stale.
final class IdleWatchdog: Sendable {
    private let last = Mutex(ContinuousClock.now)
    private let expired = Mutex(false)
    let limit: Duration

    init(seconds: Double) {
        limit = .milliseconds(Int64(seconds * 1000))
    }

    func touch() { last.withLock { $0 = .now } }

    var fired: Bool { expired.withLock { $0 } }

    /// Runs `work`; if it stalls for longer than the limit, cancels it and throws the idle failure.
    func guarding<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        touch()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                while true {
                    let deadline = self.last.withLock { $0 } + self.limit
                    if ContinuousClock.now >= deadline { break }
                    try await Task.sleep(until: deadline, clock: .continuous)
                }
                self.expired.withLock { $0 = true }
                return nil
            }
            defer { group.cancelAll() }
            while let outcome = try await group.next() {
                if let value = outcome { return value }
                throw TransferFailures.idle(limit: limit)
            }
            throw CancellationError()
        }
    }
}
