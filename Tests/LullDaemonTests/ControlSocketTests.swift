import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// What only a live lulld shows of the control API: the server's request size cap, HTTP/1.1's
/// absolute form read off the socket, and the event log across a restart and over a followed
/// stream. The routes' own answers are `ControlAPITests`, in-process.
@Suite struct ControlSocketTests {
    @Test func aBodyOverTheLimitIsRefusedBeforeTheRouter() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let huge = Data(repeating: UInt8(ascii: "a"), count: 10 << 20)
            let (status, text) = try curl(daemon.socketPath, "POST", "/v1/jobs", body: huge)
            #expect(status == 413)
            let error = try apiError(text)
            #expect(error.code == "too_large")
            #expect(error.message.contains("1048576"))
            #expect(try await client.status().jobs["queued"] == 0)
        }
    }

    @Test func theAbsoluteFormIsAnsweredOnTheSocket() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            // The absolute form, which HTTP/1.1 servers must accept, keeps working.
            let connection = try UnixSocketConnection(path: daemon.socketPath)
            defer { connection.close() }
            connection.send("GET http://lull//v1/status HTTP/1.1\r\nHost: lull\r\nConnection: close\r\n\r\n")
            let answer = connection.receive(timeout: .seconds(10))
            #expect(
                UnixSocketConnection.status(of: answer.bytes) == 200,
                "\(String(decoding: answer.bytes, as: UTF8.self))"
            )
        }
    }

    @Test func eventsReplayFromACursorAcrossRestarts() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let first = try await client.submit(
                JobSubmission(kind: .fetch, url: "http://127.0.0.1/a", destination: "/tmp/a")
            )
            let cursor = try await client.events(after: 0).lastSeq
            daemon.stop()
            try daemon.start()
            _ = try await client.cancel(first.id)
            let second = try await client.submit(
                JobSubmission(kind: .fetch, url: "http://127.0.0.1/b", destination: "/tmp/b")
            )
            let missed = try await client.events(after: cursor).events
            #expect(missed.map(\.type) == [.cancelled, .submitted])
            #expect(missed.map(\.jobId) == [first.id, second.id])
            // The SSE stream replays the same log from the cursor, then waits for more.
            var streamed: [Int64] = []
            for try await event in client.followEvents(after: 0) {
                streamed.append(event.seq)
                if event.jobId == second.id { break }
            }
            #expect(streamed == Array(1...Int64(streamed.count)))
        }
    }
}
