import AsyncHTTPClient
import Foundation
import NIOCore

/// The HTTP clients transfers use: a direct one and, when `HTTPS_PROXY`/`HTTP_PROXY` is set, one
/// through the proxy; `NO_PROXY` decides per host. TLS certificate verification stays on.
public final class HTTPClients: Sendable {
    private let direct: HTTPClient
    private let httpProxied: HTTPClient?
    private let httpsProxied: HTTPClient?
    let proxy: ProxySettings

    public init(eventLoopGroup: any EventLoopGroup, environment: [String: String], maxRedirects: Int = 5, connectTimeout: TimeAmount = .seconds(15), idleTimeout: TimeAmount = .seconds(60)) {
        proxy = ProxySettings(environment: environment)
        func make(_ via: (host: String, port: Int)?) -> HTTPClient {
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .follow(max: maxRedirects, allowCycles: false)
            configuration.timeout = .init(connect: connectTimeout, read: idleTimeout)
            // A failed connection fails the attempt at once with its real cause (refused, no
            // such name, TLS): the job's retry policy decides about trying again, instead of the
            // pool retrying silently until some other timeout hides the reason.
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.decompression = .disabled
            if let via { configuration.proxy = .server(host: via.host, port: via.port) }
            return HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        }
        direct = make(nil)
        httpProxied = proxy.http.map { make($0) }
        httpsProxied = proxy.https.map { make($0) }
    }

    /// The client to use for `url`.
    func client(for url: String) -> HTTPClient {
        guard let components = URLComponents(string: url), let host = components.host else { return direct }
        if proxy.bypasses(host) { return direct }
        switch components.scheme?.lowercased() {
        case "https": return httpsProxied ?? direct
        case "http": return httpProxied ?? direct
        default: return direct
        }
    }

    public func shutdown() async {
        try? await direct.shutdown()
        try? await httpProxied?.shutdown()
        try? await httpsProxied?.shutdown()
    }
}

/// Proxy settings from the conventional environment variables.
public struct ProxySettings: Sendable, Equatable {
    public var http: (host: String, port: Int)?
    public var https: (host: String, port: Int)?
    public var noProxy: [String]

    public init(environment: [String: String]) {
        func value(_ name: String) -> String? {
            (environment[name.lowercased()] ?? environment[name.uppercased()]).flatMap { $0.isEmpty ? nil : $0 }
        }
        http = value("http_proxy").flatMap(Self.endpoint)
        https = value("https_proxy").flatMap(Self.endpoint)
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

    static func endpoint(_ text: String) -> (host: String, port: Int)? {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), let host = components.host else { return nil }
        return (host, components.port ?? 80)
    }

    public static func == (lhs: ProxySettings, rhs: ProxySettings) -> Bool {
        lhs.http?.host == rhs.http?.host && lhs.http?.port == rhs.http?.port
            && lhs.https?.host == rhs.https?.host && lhs.https?.port == rhs.https?.port && lhs.noProxy == rhs.noProxy
    }
}
