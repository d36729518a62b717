import Foundation
import LullCore
import Synchronization

/// Bounds one attempt of a transfer in time: fails it when no bytes have moved for the idle
/// limit (`idle_timeout`) or once the whole attempt has run past the total limit
/// (`total_timeout`). AsyncHTTPClient's deadline only covers the wait for the response head, so
/// without the total limit a server that drips a body a few bytes at a time — never idle long
/// enough to trip the idle limit — would hold a job for as long as it liked. The transfer calls
/// `touch()` on every chunk; a single sleeping task wakes at the nearer of the two limits.
final class TransferWatchdog: Sendable {
    private let last = Mutex(ContinuousClock.now)
    /// How many `withoutIdleLimit` bodies run now: local work, not the network, so not idleness.
    private let holds = Mutex(0)
    let idleLimit: Duration
    let totalLimit: Duration
    private let sleeper: any Sleeper

    init(idleSeconds: Double, totalSeconds: Double, sleeper: any Sleeper) {
        self.sleeper = sleeper
        idleLimit = .milliseconds(Int64(idleSeconds * 1000))
        totalLimit = .milliseconds(Int64(min(totalSeconds, 1e12 / 1000) * 1000))
    }

    convenience init(for job: Job, settings: TransferSettings, sleeper: any Sleeper) {
        self.init(idleSeconds: settings.idle(for: job), totalSeconds: settings.totalSeconds(for: job), sleeper: sleeper)
    }

    func touch() { last.withLock { $0 = .now } }

    /// Runs `body` with the idle limit held: a download's final fsync and rename, which a slow
    /// disk can make last longer than `idle_timeout`, must not fail an attempt whose file is
    /// already whole. The total limit still applies.
    func withoutIdleLimit<T>(_ body: () async throws -> T) async rethrows -> T {
        holds.withLock { $0 += 1 }
        defer {
            holds.withLock { $0 -= 1 }
            touch()
        }
        return try await body()
    }

    private enum Expiry: Error { case idle, total }

    /// Runs `work`; if it stalls past the idle limit or runs past the total one, cancels it and
    /// throws the matching failure.
    func guarding<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        touch()
        let started = ContinuousClock.now
        return try await withThrowingTaskGroup(of: Result<T, Expiry>.self) { group in
            group.addTask { .success(try await work()) }
            group.addTask {
                while true {
                    let now = ContinuousClock.now
                    let held = self.holds.withLock { $0 > 0 }
                    let idleDeadline = (held ? now : self.last.withLock { $0 }) + self.idleLimit
                    let totalDeadline = started + self.totalLimit
                    if now >= totalDeadline { return .failure(.total) }
                    if now >= idleDeadline { return .failure(.idle) }
                    try await self.sleeper.sleep(until: min(idleDeadline, totalDeadline))
                }
            }
            defer { group.cancelAll() }
            while let outcome = try await group.next() {
                switch outcome {
                case .success(let value): return value
                case .failure(.idle): throw TransferFailures.idle(limit: idleLimit)
                case .failure(.total): throw TransferFailures.total(limit: totalLimit)
                }
            }
            throw CancellationError()
        }
    }
}
