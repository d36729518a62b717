import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// Calls through AsyncHTTPClient over the Unix socket, sharing one connection pool.
struct EventLoopExchange: ControlExchange {
    /// A local socket connects at once or not at all (see `LazyHTTPClient.configuration`).
    static let connectTimeout = Duration.seconds(1)
    let socketPath: String
    let http: LazyHTTPClient

    func exchange(_ request: ControlRequest, timeout: Duration) async throws -> ControlAnswer {
        let prepared = try Self.request(request, socketPath: socketPath)
        let amount = TimeAmount.nanoseconds(Int64(timeout / .nanoseconds(1)))
        do {
            let response = try await http.client.execute(prepared, timeout: amount)
            let body = try await response.body.collect(upTo: 64 << 20)
            var headers: [String: String] = [:]
            for (name, value) in response.headers { headers[name.lowercased()] = value }
            return ControlAnswer(status: Int(response.status.code), headers: headers, body: Array(buffer: body))
        } catch {
            throw Self.unreachable(error, socketPath: socketPath, waited: timeout)
        }
    }

    /// A failed exchange in words: no answer within `waited` (the call's deadline, or the
    /// stream's silence limit), or what the socket file says.
    static func unreachable(_ error: any Error, socketPath: String, waited: Duration) -> LullClientError {
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout {
            return .unreachable(socketPath: socketPath, reason: .noAnswer(within: waited, accepted: true))
        }
        return .unreachable(socketPath: socketPath, reason: .diagnose(socketPath, "\(error)"))
    }

    static func request(_ request: ControlRequest, socketPath: String) throws -> HTTPClientRequest {
        guard let url = URL(httpURLWithSocketPath: socketPath, uri: request.target) else {
            throw LullClientError.protocolViolation("cannot build a request URL for \(request.target) on \(socketPath)")
        }
        var prepared = HTTPClientRequest(url: url.absoluteString)
        prepared.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { prepared.headers.add(name: name, value: value) }
        if let body = request.body { prepared.body = .bytes(ByteBuffer(bytes: body)) }
        return prepared
    }
}

/// An AsyncHTTPClient made on first use, so a client that only makes blocking calls never
/// starts the event loops.
final class LazyHTTPClient: Sendable {
    private enum State {
        case unused
        case running(HTTPClient)
        case shutDown
    }

    private let state = Mutex(State.unused)
    /// How long a request may go without a byte from the daemon (nil: no limit).
    private let readTimeout: Duration?

    init(readTimeout: Duration? = nil) { self.readTimeout = readTimeout }

    /// The client, made on first use. After `shutdown` a late call (a task cancelled on its way
    /// out) gets an error rather than a new client that nobody would shut down.
    var client: HTTPClient {
        get throws {
            try state.withLock { state in
                switch state {
                case .running(let client):
                    return client
                case .unused:
                    var configuration = Self.configuration
                    if let readTimeout {
                        configuration.timeout.read = .nanoseconds(Int64(readTimeout / .nanoseconds(1)))
                    }
                    let made = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                    state = .running(made)
                    return made
                case .shutDown:
                    throw CancellationError()
                }
            }
        }
    }

    /// A local socket connects at once or not at all (no socket, nobody listening): waiting out
    /// AsyncHTTPClient's default 10 s of connection retries only delays "lulld is not running"
    /// and, for a view following a daemon that went away, every reconnect attempt.
    static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .nanoseconds(Int64(EventLoopExchange.connectTimeout / .nanoseconds(1)))
        return configuration
    }

    func shutdown() async {
        let made = state.withLock { state -> HTTPClient? in
            defer { state = .shutDown }
            if case .running(let client) = state { return client }
            return nil
        }
        try? await made?.shutdown()
    }
}
