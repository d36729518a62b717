#if canImport(Glibc)
import Glibc
#endif
import LullAPI

/// A call as plain blocking socket I/O: connect, write the request with `Connection: close`,
/// read the answer (the daemon always sends `Content-Length` for calls), close.
struct BlockingSocketExchange: ControlExchange {
    let socketPath: String

    func exchange(_ request: ControlRequest, timeout: Duration) async throws -> ControlAnswer {
        try perform(request, timeout: timeout)
    }

    func perform(_ request: ControlRequest, timeout: Duration) throws -> ControlAnswer {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw unreachable("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw unreachable("the socket path is longer than a Unix socket address allows")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw unreachable(String(cString: strerror(errno))) }

        try sendAll(fd, encode(request))
        return try readAnswer(fd)
    }

    private func encode(_ request: ControlRequest) -> [UInt8] {
        var head = "\(request.method) \(request.target) HTTP/1.1\r\nHost: lull\r\nConnection: close\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        if let body = request.body { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + (request.body ?? [])
    }

    private func sendAll(_ fd: CInt, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw unreachable("sending the request failed: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    private func readAnswer(_ fd: CInt) throws -> ControlAnswer {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var head: (status: Int, bodyStart: Int, length: Int)?
        while true {
            if head == nil { head = try parseHead(received) }
            if let head, received.count >= head.bodyStart + head.length {
                return ControlAnswer(status: head.status, body: Array(received[head.bodyStart..<(head.bodyStart + head.length)]))
            }
            let count = read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw unreachable("no answer in time") }
            guard count > 0 else { throw unreachable("the daemon closed the connection before answering in full") }
            received += chunk[..<count]
        }
    }

    /// The status, where the body starts and its length, once the whole head has arrived.
    private func parseHead(_ bytes: [UInt8]) throws -> (status: Int, bodyStart: Int, length: Int)? {
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) else {
            return nil
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."), let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            throw LullClientError.protocolViolation("the answer does not start with an HTTP/1.1 status line")
        }
        guard let length = lines.dropFirst().compactMap(Self.contentLength).first else {
            throw LullClientError.protocolViolation("the answer has no Content-Length")
        }
        return (status, end + 4, length)
    }

    private static func contentLength(_ line: Substring) -> Int? {
        guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "content-length" else { return nil }
        return Int(line[line.index(after: colon)...].trimmingPrefix(" "))
    }

    private func unreachable(_ detail: String) -> LullClientError {
        .unreachable(socketPath: socketPath, reason: UnreachableReason.diagnose(socketPath, detail))
    }
}
