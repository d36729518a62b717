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
        let components = URLComponents(string: head.uri)
        path = components?.percentEncodedPath ?? head.uri
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        self.query = query
    }

    var wantsEventStream: Bool {
        let accept = headers["accept"].joined(separator: ",")
        return !accept.contains("application/json")
    }
}
