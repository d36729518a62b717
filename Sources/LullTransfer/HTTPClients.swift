import AsyncHTTPClient
import Foundation
import LullCore
import NIOCore
import Synchronization

/// The HTTP clients transfers use: a direct one and, when `HTTPS_PROXY`/`HTTP_PROXY` is set, one
/// through the proxy; `NO_PROXY` decides per host. TLS certificate verification stays on.
/// AsyncHTTPClient sets the connect timeout per client, so a job's own `connect_seconds` gets a
/// set of clients of its own, made on first use and shared by every job asking for the same
/// whole number of seconds; past `maxTimeoutVariants` such sets, the nearest existing one serves.
/// A class's traffic marking (`TrafficMarking`) gets sets of its own the same way, made when a
/// job of such a class first runs. A job's extra certificate authorities need no client of their
/// own (see `JobClient`).
public final class HTTPClients: Sendable {
    private struct Routes: Sendable {
        let direct: HTTPClient
        let httpProxied: HTTPClient?
        let httpsProxied: HTTPClient?

        var all: [HTTPClient] { [direct] + [httpProxied, httpsProxied].compactMap { $0 } }
    }

    public let proxy: ProxySettings
    private let defaultConnectSeconds: Int64
    private let defaultConnect: TimeAmount
    private struct RouteKey: Hashable {
        var connectSeconds: Int64
        var marking: TrafficMarking
    }

    private let make: @Sendable (_ via: ProxyEndpoint?, _ connect: TimeAmount, _ marking: TrafficMarking) -> HTTPClient
    private let routes: Mutex<[RouteKey: Routes]>
    /// Markings the kernel refused, said once.
    public let markingRefusals: MarkingRefusals
    static let maxTimeoutVariants = 8
    /// Waits on the clients' event loops (transfer watchdogs).
    public let sleeper: EventLoopSleeper
    let eventLoopGroup: any EventLoopGroup

    public init(
        eventLoopGroup: any EventLoopGroup,
        environment: [String: String],
        maxRedirects: Int = 5,
        connectTimeout: TimeAmount = .seconds(15),
        idleTimeout: TimeAmount = .seconds(60),
        markingRefusals: MarkingRefusals = MarkingRefusals(logger: nil)
    ) {
        proxy = ProxySettings(environment: environment)
        self.markingRefusals = markingRefusals
        sleeper = EventLoopSleeper(group: eventLoopGroup)
        self.eventLoopGroup = eventLoopGroup
        make = { via, connect, marking in
            var configuration = HTTPClient.Configuration()
            if marking != .none {
                // The one hook AsyncHTTPClient offers on a new connection's channel.
                let mark: @Sendable (any Channel) -> EventLoopFuture<Void> = {
                    marking.apply(to: $0, refusals: markingRefusals)
                }
                configuration.http1_1ConnectionDebugInitializer = mark
                configuration.http2ConnectionDebugInitializer = mark
            }
            // A POST answered 301 or 302 is sent again as a POST with its body (RFC 9110 allows
            // either): turned into a body-less GET, as browsers do, a push or upload would end
            // `succeeded` on the GET's answer with nothing delivered. A 303 still becomes a GET:
            // it says the request was handled and where the answer is.
            configuration.redirectConfiguration = .follow(
                configuration: .init(
                    max: maxRedirects,
                    allowCycles: false,
                    retainHTTPMethodAndBodyOn301: true,
                    retainHTTPMethodAndBodyOn302: true
                )
            )
            configuration.timeout = .init(connect: connect, read: idleTimeout)
            // A failed connection fails the attempt at once with its real cause (refused, no
            // such name, TLS): the job's retry policy decides about trying again, instead of the
            // pool retrying silently until some other timeout hides the reason.
            configuration.connectionPool.retryConnectionEstablishment = false
            // The scheduler's limits (`max_per_host`, up to 4096) decide how many transfers run
            // at once; the pool's own soft limit (8) would queue the rest of them unseen.
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 4096
            configuration.decompression = .disabled
            if let via {
                switch via.kind {
                case .http:
                    let authorization = via.credentials.map {
                        HTTPClient.Authorization.basic(username: $0.user, password: $0.password)
                    }
                    configuration.proxy = .server(host: via.host, port: via.port, authorization: authorization)
                case .socks5:
                    // Names go to the proxy unresolved (AsyncHTTPClient sends the domain).
                    configuration.proxy = .socksServer(host: via.host, port: via.port)
                }
            }
            return HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        }
        defaultConnectSeconds = max(1, (connectTimeout.nanoseconds + 999_999_999) / 1_000_000_000)
        defaultConnect = connectTimeout
        // No client until the first transfer: a daemon that only holds jobs never loads the
        // HTTP/2, TLS and proxy code a client brings in (its resident memory: docs/performance.md).
        routes = Mutex([:])
    }

    /// The client to use for `job`: its URL decides the route, its `connect_seconds` the timeout.
    func client(for job: Job, marking: TrafficMarking = .none) -> HTTPClient {
        client(for: job.transfer?.url ?? "", connectSeconds: job.spec.timeouts?.connectSeconds, marking: marking)
    }

    private func client(for url: String, connectSeconds: Double?, marking: TrafficMarking) -> HTTPClient {
        let seconds = connectSeconds.map { max(1, Int64($0.rounded(.up))) } ?? defaultConnectSeconds
        let set = routes(RouteKey(connectSeconds: seconds, marking: marking))
        guard let components = URLComponents(string: url), let host = components.host else { return set.direct }
        if proxy.bypasses(host) { return set.direct }
        switch components.scheme?.lowercased() {
        case "https": return set.httpsProxied ?? set.direct
        case "http": return set.httpProxied ?? set.direct
        default: return set.direct
        }
    }

    /// Whether requests to `url` go through a proxy.
    func isProxied(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let host = components.host, !proxy.bypasses(host) else {
            return false
        }
        switch components.scheme?.lowercased() {
        case "https": return proxy.https != nil
        case "http": return proxy.http != nil
        default: return false
        }
    }

    private func routes(_ key: RouteKey) -> Routes {
        routes.withLock { routes in
            if let existing = routes[key] { return existing }
            // The default always gets its own set per marking; the other timeouts share the
            // remaining places.
            let seconds = key.connectSeconds
            let others = routes.keys.filter { $0.marking == key.marking && $0.connectSeconds != defaultConnectSeconds }
            if seconds != defaultConnectSeconds, others.count >= Self.maxTimeoutVariants - 1,
                let nearest = others.min(by: { abs($0.connectSeconds - seconds) < abs($1.connectSeconds - seconds) })
            {
                return routes[nearest]!
            }
            let connect = seconds == defaultConnectSeconds ? defaultConnect : .seconds(seconds)
            let created = Routes(
                direct: make(nil, connect, key.marking),
                httpProxied: proxy.http.map { make($0, connect, key.marking) },
                httpsProxied: proxy.https.map { make($0, connect, key.marking) }
            )
            routes[key] = created
            return created
        }
    }

    public func shutdown() async {
        let clients = routes.withLock { routes in routes.values.flatMap(\.all) }
        for client in clients { try? await client.shutdown() }
    }
}
