import Foundation
import LullAPI
import LullClient
import LullCore
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

@testable import LullDaemon

/// An event stream with nothing to say sends a comment each heartbeat, so a follower can tell
/// a quiet daemon from a stopped one by its silence; events still come as they happen.
@Suite struct EventStreamHeartbeatTests {
    @Test func aQuietStreamSaysSoEachHeartbeatAndEventsStillFlow() async throws {
        try await withInProcessDaemon(config: holdEverything) { daemon, client in
            var router = daemon.router
            router.eventStreamHeartbeat = .milliseconds(200)
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/v1/events?after=0")
            head.headers.add(name: "accept", value: "text/event-stream")
            let request = LullDaemon.ControlRequest(
                head: head,
                body: ByteBuffer(),
                peer: PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid())
            )
            guard case .stream(_, let producer) = await router.handle(request) else {
                Issue.record("no stream")
                return
            }
            let written = Written()
            let streaming = Task { try await producer(StreamWriter { written.append($0) }) }
            defer { streaming.cancel() }
            try await waitUntil("two heartbeats", timeout: .seconds(10)) {
                written.text.components(separatedBy: ": keep-alive\n\n").count > 2
            }
            _ = try await client.submit(JobSubmission(kind: .push, url: "http://127.0.0.1:9/a", body: "x"))
            try await waitUntil("the submission's event", timeout: .seconds(10)) {
                written.text.contains("event: submitted")
            }
        }
    }
}

private final class Written: Sendable {
    private let chunks = Mutex<[String]>([])
    func append(_ chunk: String) { chunks.withLock { $0.append(chunk) } }
    var text: String { chunks.withLock { $0.joined() } }
}
