import Foundation

/// Proxy settings from the conventional environment variables.
public struct ProxySettings: Sendable, Equatable {
    public var http: ProxyEndpoint?
    public var https: ProxyEndpoint?
    public var noProxy: [String]

    public init(environment: [String: String]) {
        func value(_ name: String) -> String? {
            (environment[name.lowercased()] ?? environment[name.uppercased()]).flatMap { $0.isEmpty ? nil : $0 }
        }
        http = value("http_proxy").flatMap(ProxyEndpoint.init)
        https = value("https_proxy").flatMap(ProxyEndpoint.init)
        noProxy = (value("no_proxy") ?? "").split(separator: ",")
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
}

/// One proxy: `host:port`, `http://host:port` or `http://user:password@host:port` (port 80 when
/// omitted). The user and password are percent-decoded, as in any URL, so a `@` or `:` in them
/// can be written `%40` or `%3A`; they are sent to the proxy as `Proxy-Authorization: Basic`.
public struct ProxyEndpoint: Sendable, Equatable {
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

    public init?(_ text: String) {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), let host = components.host else { return nil }
        self.host = host
        port = components.port ?? 80
        credentials = components.user.map { Credentials(user: $0, password: components.password ?? "") }
    }
}
