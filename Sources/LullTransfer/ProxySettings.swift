import Foundation

/// Proxy settings from the conventional environment variables.
public struct ProxySettings: Sendable, Equatable {
    public var http: ProxyEndpoint?
    public var https: ProxyEndpoint?
    /// Variables naming a proxy Lull cannot use, with why: the URLs they cover fail rather than
    /// go direct, past a proxy the admin meant every request to take.
    public var unusable: [Unusable]
    public var noProxy: [String]

    public struct Unusable: Sendable, Equatable {
        /// The variable as set (`https_proxy` or `HTTPS_PROXY`, ...).
        public var variable: String
        /// The URL scheme it serves: "http" or "https".
        public var scheme: String
        public var reason: String
    }

    public init(environment: [String: String]) {
        func value(_ name: String) -> (variable: String, text: String)? {
            for variable in [name.lowercased(), name.uppercased()] {
                if let text = environment[variable], !text.isEmpty { return (variable, text) }
            }
            return nil
        }
        var unusable: [Unusable] = []
        func endpoint(_ name: String, scheme: String) -> ProxyEndpoint? {
            guard let (variable, text) = value(name) else { return nil }
            do {
                return try ProxyEndpoint(parsing: text)
            } catch {
                unusable.append(Unusable(variable: variable, scheme: scheme, reason: error.reason))
                return nil
            }
        }
        http = endpoint("http_proxy", scheme: "http")
        https = endpoint("https_proxy", scheme: "https")
        self.unusable = unusable
        noProxy = (value("no_proxy")?.text ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// Whether `host` is exempt: an exact name, a domain suffix (".example.org" or "example.org"), or "*".
    public func bypasses(_ host: String) -> Bool {
        let host = host.lowercased()
        return noProxy.contains { entry in
            if entry == "*" { return true }
            let suffix = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            return host == suffix || host.hasSuffix("." + suffix)
        }
    }

    /// The unusable proxy that requests to `url` would have to take, if any.
    public func unusable(for url: String) -> Unusable? {
        guard let components = URLComponents(string: url), let host = components.host, !bypasses(host) else {
            return nil
        }
        let scheme = components.scheme?.lowercased()
        return unusable.first { $0.scheme == scheme }
    }
}

/// One proxy:
/// - an HTTP proxy, tunnelled to with `CONNECT`: `host:port`, `http://host:port` or
///   `http://user:password@host:port` (port 80 when omitted). The user and password are
///   percent-decoded, as in any URL, so a `@` or `:` in them can be written `%40` or `%3A`; they
///   are sent to the proxy as `Proxy-Authorization: Basic`.
/// - a SOCKS5 proxy without authentication: `socks5://host:port` or `socks5h://host:port` (port
///   1080 when omitted). Either way the proxy resolves the names, as `socks5h` says.
/// Any other scheme (an `https://` proxy, which needs TLS to the proxy; SOCKS4) and SOCKS5 with a
/// user are refused: used as a plain HTTP proxy, their credentials would go out in the clear.
public struct ProxyEndpoint: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case http
        case socks5
    }

    public var kind: Kind
    public var host: String
    public var port: Int
    public var credentials: Credentials?

    public struct Credentials: Sendable, Equatable {
        public var user: String
        public var password: String

        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    public struct Refusal: Error, Equatable {
        public var reason: String
    }

    public init?(_ text: String) { try? self.init(parsing: text) }

    public init(parsing text: String) throws(Refusal) {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty else {
            throw Refusal(reason: "\"\(Self.withoutPassword(text))\" is not a proxy URL; write http://host:port")
        }
        let scheme = components.scheme?.lowercased() ?? "http"
        switch scheme {
        case "http":
            kind = .http
        case "socks5", "socks5h":
            kind = .socks5
            guard components.user == nil else {
                throw Refusal(
                    reason:
                        "it names a SOCKS5 proxy with a user, and Lull's SOCKS5 client has no user/password authentication; use an unauthenticated SOCKS5 proxy or an http:// one"
                )
            }
        case "https":
            throw Refusal(
                reason:
                    "it names an https:// proxy, which needs TLS to the proxy and Lull cannot do that; use the proxy's http:// address (the tunnel to an https URL is still TLS from end to end) or a socks5:// one"
            )
        default:
            throw Refusal(reason: "Lull cannot use a \(scheme):// proxy; use an http:// or socks5:// one")
        }
        self.host = host
        port = components.port ?? (kind == .socks5 ? 1080 : 80)
        credentials = components.user.map { Credentials(user: $0, password: components.password ?? "") }
    }

    /// `text` for a message: a password in it is replaced.
    private static func withoutPassword(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        return String(text[..<start]) + "…" + String(text[at...])
    }
}
