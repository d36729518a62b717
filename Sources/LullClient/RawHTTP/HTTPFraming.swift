/// The few bytes of HTTP/1.1 the raw socket clients of this package need: a request as bytes,
/// and where a response with a `Content-Length` body (every call the daemon answers) begins and ends.
package enum HTTPFraming {
    /// A request with `Host: lull`; the body gets its `Content-Length`. `close` asks the daemon to
    /// close the connection after answering (one call per connection), else it stays open.
    package static func request(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil,
        close: Bool = false
    ) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: lull\r\n"
        if close { head += "Connection: close\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + (body ?? [])
    }

    /// One whole response at the front of a buffer.
    package struct Response: Equatable {
        package var status: Int
        /// The head's fields, by lower-cased name (the last of repeated ones).
        package var headers: [String: String] = [:]
        /// Where the body lies in the buffer.
        package var body: Range<Int>
        /// The buffer's bytes this response takes; what follows belongs to the next one.
        package var end: Int { body.upperBound }
    }

    /// The response at the front of `bytes`, or nil while its head or body has not all arrived.
    package static func response(in bytes: [UInt8]) throws(HTTPFramingError) -> Response? {
        guard let head = head(bytes) else { return nil }
        guard let status = status(of: bytes) else { throw .noStatusLine }
        guard let field = head.fields["content-length"] else { throw .noContentLength }
        // Digits only, and a length a buffer could hold: a hostile or broken peer must not trap us.
        guard let length = Int(field), length >= 0, field.allSatisfy(\.isASCIIDigit), length <= maxBodyBytes else {
            throw .badContentLength(field)
        }
        let body = head.bodyStart..<(head.bodyStart + length)
        return bytes.count >= body.upperBound ? Response(status: status, headers: head.fields, body: body) : nil
    }

    /// The largest body the raw clients accept.
    static let maxBodyBytes = 1 << 40

    /// How many bytes the message at the front of `bytes` (a request or a response) takes, once
    /// its head has arrived: the head and its `Content-Length` body, if it has one.
    package static func messageLength(in bytes: [UInt8]) -> Int? {
        head(bytes).map { head in
            let length = head.fields["content-length"].flatMap { Int($0) }.map { min(max($0, 0), maxBodyBytes) }
            return head.bodyStart + (length ?? 0)
        }
    }

    /// Where the body starts and the head's fields, once the whole head has arrived.
    private static func head(_ bytes: [UInt8]) -> (bodyStart: Int, fields: [String: String])? {
        guard let headEnd = headEnd(bytes) else { return nil }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).split(separator: "\r\n")
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = String(line[line.index(after: colon)...].trimmingPrefix(" "))
        }
        return (headEnd + 4, fields)
    }

    /// The status code of the response `bytes` start with, once its status line has arrived.
    package static func status(of bytes: [UInt8]) -> Int? {
        let line = bytes.prefix(12)
        guard line.count == 12, line.starts(with: Array("HTTP/1.".utf8)) else { return nil }
        return Int(String(decoding: line.dropFirst(9), as: UTF8.self))
    }

    /// Where the blank line that ends the head starts.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first {
            bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
        }
    }

}

/// A response the raw clients cannot frame: the socket is not answering in HTTP/1.1 as lulld does.
package enum HTTPFramingError: Error, Equatable, CustomStringConvertible {
    case noStatusLine
    case noContentLength
    case badContentLength(String)

    package var description: String {
        switch self {
        case .noStatusLine: "the answer does not start with an HTTP/1.1 status line"
        case .noContentLength: "the answer has no Content-Length"
        case .badContentLength(let field): "the answer's Content-Length is not a length: \(field)"
        }
    }
}
