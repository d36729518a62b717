import Foundation
import LullClient

/// A blocking HTTP/1.1 keep-alive connection over a Unix socket, for load generation only:
/// the cheapest possible client, so the benchmark measures the daemon rather than itself.
/// Like any keep-alive client it reconnects once when the daemon has closed an idle
/// connection (`limits.request_read_timeout`). The socket and the framing are LullClient's.
final class RawHTTPConnection {
    private var stream: UnixSocketStream
    private var reader = HTTPResponseReader()

    init(socketPath: String) throws {
        stream = try Self.open(socketPath)
    }

    private static func open(_ socketPath: String) throws -> UnixSocketStream {
        do {
            return try UnixSocketStream(connectingTo: socketPath)
        } catch {
            throw BenchError("cannot connect to \(socketPath): \(error)")
        }
    }

    /// Sends one request and returns the response status once the whole response is read.
    func roundTrip(_ request: [UInt8]) throws -> Int { try exchange(request).status }

    /// Sends one request and returns the status and body once the whole response is read.
    func exchange(_ request: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        if let answer = try attempt(request) { return answer }
        stream = try Self.open(stream.path)
        guard let answer = try attempt(request) else {
            throw BenchError("the daemon closed a fresh connection without answering")
        }
        return answer
    }

    /// The answer, or nil when the daemon had closed the connection before it (reconnect and repeat).
    private func attempt(_ request: [UInt8]) throws -> (status: Int, body: [UInt8])? {
        do {
            try stream.send(request)
        } catch  where error.peerClosed {
            return nil
        } catch {
            throw BenchError("write failed: \(error)")
        }
        do {
            return try reader.next(from: stream).map { ($0.status, $0.body) }
        } catch {
            throw BenchError("reading the answer failed: \(error)")
        }
    }

    /// Sends a request whose answer is a stream (server-sent events) and hands each line to
    /// `handle` as it arrives, until `handle` returns true; throws after `timeout` seconds.
    func follow(_ request: [UInt8], timeout: Double, _ handle: (Substring) -> Bool) throws {
        try stream.send(request)
        let deadline = ContinuousClock.now + .seconds(timeout)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // Bytes, not a String: a String would fold "\r\n" into one Character and hide the line ends.
        var bytes: [UInt8] = []
        while ContinuousClock.now < deadline {
            guard stream.readable(within: deadline - ContinuousClock.now) else { continue }
            let n = try stream.receive(into: &buffer)
            guard n > 0 else { throw BenchError("event stream closed by the daemon") }
            bytes += buffer[..<n]
            // The lines are cut from the front once a read, not one at a time: a replay arrives
            // hundreds of lines a read.
            var lineStart = bytes.startIndex
            defer { bytes.removeSubrange(..<lineStart) }
            while let newline = bytes[lineStart...].firstIndex(of: 10) {
                let end = newline > lineStart && bytes[newline - 1] == 13 ? newline - 1 : newline
                let line = String(decoding: bytes[lineStart..<end], as: UTF8.self)
                lineStart = newline + 1
                if handle(Substring(line)) { return }
            }
        }
        throw BenchError("no matching event within \(timeout) s")
    }

    static func submitRequest(_ n: Int) -> [UInt8] {
        request("POST", "/v1/jobs", body: submitBody(n))
    }

    /// One `POST /v1/jobs:batch` carrying jobs `first..<first + count`.
    static func batchRequest(first: Int, count: Int, extra: String = "") -> [UInt8] {
        let jobs = (first..<(first + count)).map { submitBody($0, extra: extra) }.joined(separator: ",")
        return request("POST", "/v1/jobs:batch", body: #"{"jobs":[\#(jobs)]}"#)
    }

    /// A fetch job that goes nowhere (the daemon holds it or fails it fast); `extra` adds JSON fields.
    static func submitBody(_ n: Int, extra: String = "") -> String {
        #"{"kind":"fetch","url":"http://127.0.0.1:9/bench/\#(n)","destination":"/tmp/lull-bench-\#(n)","label":"bench"\#(extra)}"#
    }

    static func request(_ method: String, _ path: String, body: String? = nil) -> [UInt8] {
        HTTPFraming.request(
            method,
            path,
            headers: body == nil ? [] : [("Content-Type", "application/json")],
            body: body.map { Array($0.utf8) }
        )
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
