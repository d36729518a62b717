import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// Calls through AsyncHTTPClient over the Unix socket, sharing one connection pool.
struct EventLoopExchange: ControlExchange {
    let socketPath: String
    let http: LazyHTTPClient

    func exchange(_ request: ControlRequest, timeout: Duration) async throws -> ControlAnswer {
        let prepared = try Self.request(request, socketPath: socketPath)
        let amount = TimeAmount.nanoseconds(Int64(timeout / .nanoseconds(1)))
        do {
            let response = try await http.client.execute(prepared, timeout: amount)
            let body = try await response.body.collect(upTo: 64 << 20)
            return ControlAnswer(status: Int(response.status.code), body: Array(buffer: body))
        } catch {
            throw LullClientError.unreachable(socketPath: socketPath, reason: .diagnose(socketPath, "\(error)"))
        }
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
    private let slot = Mutex<HTTPClient?>(nil)

    var client: HTTPClient {
        slot.withLock { client in
            if let client { return client }
            let made = HTTPClient(eventLoopGroupProvider: .singleton)
            client = made
            return made
        }
    }

    func shutdown() async {
        let made = slot.withLock { client in
            defer { client = nil }
            return client
        }
        try? await made?.shutdown()
    }
}
