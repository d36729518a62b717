import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

/// A client that pipelines requests and then stops reading the answers fills its socket; past
/// `request_read_timeout` of that, lulld closes the connection (it used to hold it, with the
/// answers in flight, for as long as the client liked).
@Suite struct StalledReaderTests {
    @Test func aClientThatStopsReadingIsDisconnected() async throws {
        try await withDaemon(config: "[limits]\nmax_concurrent = 0\nrequest_read_timeout = 2\n") { daemon, client in
            // Answers of some 40 KiB each: 200 of them are far more than the socket holds.
            _ = try await client.submit(
                batch: (0..<40).map { JobSubmission(kind: .push, url: "http://127.0.0.1:9/p\($0)", body: "x") }
            )
            let connection = try UnixSocketConnection(path: daemon.socketPath)
            defer { connection.close() }
            let request = "GET /v1/jobs?limit=1000 HTTP/1.1\r\nHost: lull\r\nAccept: application/json\r\n\r\n"
            #expect(connection.send(String(repeating: request, count: 200)))
            // Not reading: lulld's writes stall once the socket is full.
            try await Task.sleep(for: .seconds(5))
            let (answers, closed) = connection.receive(timeout: .seconds(10))
            let count = String(decoding: answers, as: UTF8.self).components(separatedBy: "HTTP/1.1 200 OK").count - 1
            print("a stalled reader: \(count) of 200 answers, then \(closed ? "closed" : "still open")")
            #expect(closed, "lulld kept the connection of a client that stopped reading")
            #expect(count < 200)
            _ = try await client.status()
        }
    }
}
