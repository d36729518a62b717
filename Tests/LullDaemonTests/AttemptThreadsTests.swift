import Foundation
import Synchronization
import Testing

@testable import LullTransfer

/// Attempts reuse the threads of attempts that ended, and no more of them wait than the limit.
@Suite struct AttemptThreadsTests {
    /// Works that wait for each other: each holds its thread until all `count` have started.
    final class Rendezvous: Sendable {
        let count: Int
        private let started = Mutex<[UInt]>([])
        private let gate = DispatchSemaphore(value: 0)

        init(count: Int) { self.count = count }

        var threads: Set<UInt> { Set(started.withLock { $0 }) }

        func arrive() {
            let all = started.withLock { started in
                started.append(UInt(pthread_self()))
                return started.count
            }
            if all == count { for _ in 0..<count { gate.signal() } }
            gate.wait()
        }
    }

    /// Runs `count` works at once on `threads`; the threads they ran on.
    func runTogether(_ count: Int, on threads: AttemptThreads) async -> Set<UInt> {
        let rendezvous = Rendezvous(count: count)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        threads.run {
                            rendezvous.arrive()
                            continuation.resume()
                        }
                    }
                }
            }
        }
        return rendezvous.threads
    }

    func waitFor(_ threads: AttemptThreads, waiting: Int) async throws {
        for _ in 0..<1000 where threads.waiting != waiting { try await Task.sleep(for: .milliseconds(5)) }
        #expect(threads.waiting == waiting)
    }

    @Test func endedAttemptsLeaveTheirThreadsForTheNext() async throws {
        let threads = AttemptThreads(idleLimit: 4)
        let first = await runTogether(3, on: threads)
        #expect(first.count == 3, "three at once need three threads")
        try await waitFor(threads, waiting: 3)
        let second = await runTogether(3, on: threads)
        #expect(second == first, "the same three threads, none new")
        try await waitFor(threads, waiting: 3)
    }

    @Test func noMoreThanTheLimitWait() async throws {
        let threads = AttemptThreads(idleLimit: 1)
        let used = await runTogether(3, on: threads)
        #expect(used.count == 3)
        try await waitFor(threads, waiting: 1)
        let next = await runTogether(1, on: threads)
        #expect(next.isSubset(of: used))
    }
}
