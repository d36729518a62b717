import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A daemon that stops answering without closing its socket (SIGSTOP, a hung machine): the
/// event stream's silence gives it away, so a follower reconnects and, past `reconnectWithin`,
/// gives up, instead of waiting for ever on an open connection.
@Suite struct StoppedDaemonFollowerTests {
    @Test func aFollowerOfAStoppedDaemonGivesUpInTime() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let follower = LullClient(socketPath: daemon.socketPath, eventStreamSilence: .seconds(1))
            defer { Task { await follower.shutdown() } }
            let (seen, saw) = AsyncStream.makeStream(of: Int64.self)
            let following = Task {
                for try await event in follower.followEvents(after: 0, reconnectWithin: .seconds(2)) {
                    saw.yield(event.seq)
                }
            }
            _ = try await client.submit(JobSubmission(kind: .push, url: "http://127.0.0.1:9/a", body: "x"))
            for await _ in seen { break }
            #expect(kill(daemon.pid, SIGSTOP) == 0)
            defer { kill(daemon.pid, SIGCONT) }
            let stopped = ContinuousClock.now
            let ended = Task { () -> (any Error)? in
                do {
                    try await following.value
                    return nil
                } catch {
                    return error
                }
            }
            let outcome = try await withThrowingTaskGroup(of: (any Error)?.self) { group in
                group.addTask { await ended.value }
                group.addTask {
                    try await Task.sleep(for: .seconds(30))
                    following.cancel()
                    throw TimedOut(description: "the follower still waits 30 s after the daemon stopped")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
            let took = ContinuousClock.now - stopped
            print("the follower of a stopped daemon gave up after \(took): \(String(describing: outcome))")
            guard case LullClientError.unreachable? = outcome as? LullClientError else {
                Issue.record("ended with \(String(describing: outcome))")
                return
            }
        }
    }
}
