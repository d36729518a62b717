#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A blocking HTTP/1.1 keep-alive connection over a Unix socket, for load generation only:
/// the cheapest possible client, so the benchmark measures the daemon rather than itself.
/// Like any keep-alive client it reconnects once when the daemon has closed an idle
/// connection (`limits.request_read_timeout`).
final class RawHTTPConnection {
    private var fd: CInt
    private let socketPath: String
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var pending: [UInt8] = []

    init(socketPath: String) throws {
        self.socketPath = socketPath
        fd = try Self.open(socketPath)
    }

    private static func open(_ socketPath: String) throws -> CInt {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            socketPath.utf8CString.withUnsafeBytes { raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(raw.count - 1))) }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw BenchError("cannot connect to \(socketPath): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    deinit { close(fd) }

    /// Sends one request and returns the response status once the whole response is read.
    func roundTrip(_ request: [UInt8]) throws -> Int { try exchange(request).status }

    /// Sends one request and returns the status and body once the whole response is read.
    func exchange(_ request: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        do {
            return try attempt(request)
        } catch is ClosedByDaemon where pending.isEmpty {
            close(fd)
            fd = try Self.open(socketPath)
            return try attempt(request)
        }
    }

    private struct ClosedByDaemon: Error {}

    private func attempt(_ request: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else {
                if errno == EPIPE || errno == ECONNRESET { throw ClosedByDaemon() }
                throw BenchError("write failed: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
        while true {
            if let (status, bodyStart, length) = parse() {
                let body = Array(pending[bodyStart..<length])
                pending.removeFirst(length)
                return (status, body)
            }
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else {
                if pending.isEmpty { throw ClosedByDaemon() }
                throw BenchError("connection closed by the daemon in the middle of an answer")
            }
            pending += buffer[..<n]
        }
    }

    /// Sends a request whose answer is a stream (server-sent events) and hands each line to
    /// `handle` as it arrives, until `handle` returns true; throws after `timeout` seconds.
    func follow(_ request: [UInt8], timeout: Double, _ handle: (Substring) -> Bool) throws {
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        // Bytes, not a String: a String would fold "\r\n" into one Character and hide the line ends.
        var bytes: [UInt8] = []
        while DispatchTime.now().uptimeNanoseconds < deadline {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32((deadline - min(deadline, DispatchTime.now().uptimeNanoseconds)) / 1_000_000)
            guard poll(&descriptor, 1, max(1, left)) > 0 else { continue }
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { throw BenchError("event stream closed by the daemon") }
            bytes += buffer[..<n]
            while let newline = bytes.firstIndex(of: 10) {
                let line = String(decoding: bytes[..<newline], as: UTF8.self)
                bytes.removeSubrange(...newline)
                if handle(Substring(line.hasSuffix("\r") ? String(line.dropLast()) : line)) { return }
            }
        }
        throw BenchError("no matching event within \(timeout) s")
    }

    /// (status, body offset, total bytes) of a complete response at the front of `pending`, if there is one.
    private func parse() -> (Int, Int, Int)? {
        guard let end = headerEnd() else { return nil }
        let head = String(decoding: pending[..<end], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.count >= 12, let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            return nil
        }
        var length = 0
        for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        let total = end + 4 + length
        return pending.count >= total ? (status, end + 4, total) : nil
    }

    private func headerEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for index in 0...(pending.count - 4)
        where pending[index] == 13 && pending[index + 1] == 10 && pending[index + 2] == 13 && pending[index + 3] == 10 {
            return index
        }
        return nil
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
        #"{"kind":"fetch","url":"http://127.0.0.1:9/bench/\#(n)","destination":"/tmp/lull-bench/\#(n)","label":"bench"\#(extra)}"#
    }

    static func request(_ method: String, _ path: String, body: String? = nil) -> [UInt8] {
        guard let body else { return Array("\(method) \(path) HTTP/1.1\r\nHost: lull\r\n\r\n".utf8) }
        return Array("\(method) \(path) HTTP/1.1\r\nHost: lull\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
