import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP request on the control socket, body fully read (and capped).
struct ControlRequest: Sendable {
    var method: HTTPMethod
    var path: String
    var query: [String: String]
    var headers: HTTPHeaders
    var body: ByteBuffer
    var peer: PeerCredentials

    init(head: HTTPRequestHead, body: ByteBuffer, peer: PeerCredentials) {
        method = head.method
        headers = head.headers
        self.body = body
        self.peer = peer
        // Most requests are a bare origin-form path; only parse what needs parsing.
        if Self.isPlainPath(head.uri) {
            path = head.uri
            query = [:]
            return
        }
        let components = URLComponents(string: head.uri)
        path = components?.percentEncodedPath ?? head.uri
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        self.query = query
    }

    /// "/v1/jobs": starts with one slash, no query, no fragment — URLComponents would return it as is.
    private static func isPlainPath(_ uri: String) -> Bool {
        let bytes = uri.utf8
        guard bytes.first == UInt8(ascii: "/"), !bytes.dropFirst().starts(with: [UInt8(ascii: "/")]) else { return false }
        return !bytes.contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
    }

    var wantsEventStream: Bool {
        let accept = headers["accept"].joined(separator: ",")
        return !accept.contains("application/json")
    }
}
