import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// `limits.request_read_timeout`: a request must be complete within it, however slowly its bytes
/// trickle in; an answer being streamed (the event stream) is never cut.
@Suite struct SlowClientTests {
    @Test func aTricklingRequestIsClosedAndAnEventStreamIsNot() async throws {
        try await withDaemon(config: holdEverything + "\nrequest_read_timeout = 1\n") { daemon, client in
            let follower = Task {
                try await awaitEvent(client: client, timeout: .seconds(20), "the held job's submission") {
                    $0.type == .submitted
                }
            }
            let slow = try UnixSocketConnection(path: daemon.socketPath)
            defer { slow.close() }
            let began = ContinuousClock.now
            #expect(slow.send("GET /v1/status HTTP/1.1\r\nHost: lull\r\n"))
            // A header byte every 300 ms: a slowloris that never finishes.
            var closed = false
            while !closed, ContinuousClock.now - began < .seconds(8) {
                _ = slow.send("X")
                closed = slow.receive(timeout: .milliseconds(300)).closed
            }
            let held = ContinuousClock.now - began
            print("a trickling request was closed after \(held)")
            #expect(closed && held < .seconds(4), "closed: \(closed) after \(held)")

            // The event stream has been quiet for well over the timeout; it must still deliver.
            try await Task.sleep(for: .milliseconds(1500))
            _ = try await client.submit(
                JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/x", destination: "/tmp/lull-slow-x")
            )
            _ = try await follower.value
            #expect(try await client.status().jobs["queued"] == 1, "well-behaved clients are served")
        }
    }

    /// Each answer gives the client the whole timeout again for its next request on the
    /// connection, and a connection left idle after an answer is closed once that runs out.
    @Test func eachAnswerRestartsTheClockAndAnIdleConnectionIsClosed() async throws {
        try await withDaemon(config: holdEverything + "\nrequest_read_timeout = 1\n") { daemon, _ in
            let connection = try UnixSocketConnection(path: daemon.socketPath)
            defer { connection.close() }
            // Three requests 700 ms apart: 2.1 s in all, each within a second of the last answer.
            for _ in 0..<3 {
                #expect(connection.send("GET /v1/status HTTP/1.1\r\nHost: lull\r\n\r\n"))
                let answer = connection.receive(timeout: .milliseconds(700))
                #expect(UnixSocketConnection.status(of: answer.bytes) == 200 && !answer.closed)
            }
            let answered = ContinuousClock.now
            let idle = connection.receive(timeout: .seconds(5))
            let held = ContinuousClock.now - answered
            #expect(idle.closed && idle.bytes.isEmpty && held < .seconds(3), "closed: \(idle.closed) after \(held)")
        }
    }

    /// A pipelining client may ask for the event stream right behind another request. The
    /// earlier answer must not start the clock while the stream is still owed: the stream stays
    /// open well past the timeout and delivers what happens later.
    @Test func anEventStreamPipelinedBehindARequestIsNotCut() async throws {
        try await withDaemon(config: holdEverything + "\nrequest_read_timeout = 1\n") { daemon, client in
            let connection = try UnixSocketConnection(path: daemon.socketPath)
            defer { connection.close() }
            #expect(
                connection.send(
                    "GET /v1/status HTTP/1.1\r\nHost: lull\r\n\r\n"
                        + "GET /v1/events HTTP/1.1\r\nHost: lull\r\nAccept: text/event-stream\r\n\r\n"
                )
            )
            var received = connection.receive(timeout: .milliseconds(2500))
            let cut = received.closed
            #expect(!cut, "the event stream was closed with the read timeout")
            _ = try await client.submit(
                JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/x", destination: "/tmp/lull-pipelined-stream")
            )
            let began = ContinuousClock.now
            while !String(decoding: received.bytes, as: UTF8.self).contains("event: submitted"),
                !received.closed, ContinuousClock.now - began < .seconds(10)
            {
                let more = connection.receive(timeout: .milliseconds(500))
                received.bytes += more.bytes
                received.closed = more.closed
            }
            let text = String(decoding: received.bytes, as: UTF8.self)
            #expect(UnixSocketConnection.status(of: received.bytes) == 200)
            #expect(text.contains("text/event-stream") && text.contains("event: submitted"), "got: \(text.suffix(300))")
        }
    }
}
