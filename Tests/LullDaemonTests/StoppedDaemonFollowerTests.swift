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

    /// A socket whose listen queue is full: a Unix socket refuses the connect at once (EAGAIN),
    /// which used to read "cannot talk to lulld … Is it running?". It is a busy daemon.
    @Test func aFullListenQueueIsABusyDaemonNotAMissingOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-backlog-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                try #require(bind(listener, raw, length) == 0)
                try #require(listen(listener, 0) == 0)
            }
        }
        // Fill the queue: never accepted.
        var fillers: [Int32] = []
        defer { fillers.forEach { close($0) } }
        for _ in 0..<4 {
            let filler = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue), 0)
            fillers.append(filler)
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = connect(filler, $0, length) }
            }
        }
        let client = LullClient(socketPath: path, timeout: .seconds(2), style: .eventLoop)
        defer { Task { await client.shutdown() } }
        do {
            _ = try await client.status()
            Issue.record("a call through a full queue was answered")
        } catch let error as LullClientError {
            guard case .unreachable(_, .noAnswer(_, accepted: false)) = error else {
                Issue.record("\(error)")
                return
            }
            #expect("\(error)".contains("did not accept the connection"), "\(error)")
        }
    }
}
