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
        // Not URLComponents: it reads "//v1/status" as the host "v1" and the path "/status",
        // where the router ignores doubled slashes.
        let target = Self.originForm(head.uri)
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else {
            path = String(target)
            query = [:]
            return
        }
        path = String(target[..<mark])
        query = Self.query(target[target.utf8.index(after: mark)...])
    }

    /// The path and query of a request target: a fragment dropped, and for the absolute form
    /// ("http://lull/v1/status", which HTTP/1.1 servers must accept) scheme and authority too.
    private static func originForm(_ uri: String) -> Substring {
        var target = Substring(uri)
        if let hash = target.utf8.firstIndex(of: UInt8(ascii: "#")) { target = target[..<hash] }
        guard !target.hasPrefix("/"), let scheme = target.range(of: "://") else { return target }
        let authorityAndPath = target[scheme.upperBound...]
        guard let slash = authorityAndPath.utf8.firstIndex(of: UInt8(ascii: "/")) else { return "/" }
        return authorityAndPath[slash...]
    }

    /// `name=value` pairs split at `&`, names and values percent-decoded. `+` is a plus, not a
    /// space: the API takes no form encoding. The last of a repeated name wins.
    private static func query(_ text: Substring) -> [String: String] {
        var query: [String: String] = [:]
        for item in text.split(separator: "&", omittingEmptySubsequences: true) {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = pair.count > 1 ? decoded(pair[1]) : ""
            query[decoded(pair[0])] = value
        }
        return query
    }

    /// A malformed escape ("%zz") is kept as written rather than losing the whole query: a
    /// number check then refuses it naming the parameter, a label matches it as text.
    private static func decoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }

    var wantsEventStream: Bool {
        let accept = headers["accept"].joined(separator: ",")
        return !accept.contains("application/json")
    }
}
