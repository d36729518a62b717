import AsyncHTTPClient
import Foundation
import LullAPI
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A typed client for the Lull control API over its Unix socket. `lullctl` is built on it.
public final class LullClient: Sendable {
    public let socketPath: String
    private let http: HTTPClient
    private let timeout: TimeAmount

    public init(socketPath: String, timeout: TimeAmount = .seconds(30)) {
        self.socketPath = socketPath
        self.timeout = timeout
        http = HTTPClient(eventLoopGroupProvider: .singleton)
    }

    /// Releases the connection pool; call once when done.
    public func shutdown() async {
        try? await http.shutdown()
    }

    public func status() async throws -> StatusView {
        try await call(.GET, "/v1/status")
    }

    public func submit(_ submission: JobSubmission) async throws -> JobView {
        try await call(.POST, "/v1/jobs", body: submission)
    }

    public func submit(batch: [JobSubmission]) async throws -> [JobView] {
        let view: BatchView = try await call(.POST, "/v1/jobs:batch", body: BatchSubmission(jobs: batch))
        return view.jobs
    }

    public func list(
        state: String? = nil, label: String? = nil, jobClass: String? = nil, limit: Int? = nil, after: Int64? = nil
    ) async throws -> JobListView {
        var query: [(String, String)] = []
        if let state { query.append(("state", state)) }
        if let label { query.append(("label", label)) }
        if let jobClass { query.append(("class", jobClass)) }
        if let limit { query.append(("limit", String(limit))) }
        if let after { query.append(("after", String(after))) }
        return try await call(.GET, "/v1/jobs", query: query)
    }

    public func job(_ id: Int64) async throws -> JobView {
        try await call(.GET, "/v1/jobs/\(id)")
    }

    public func cancel(_ id: Int64) async throws -> JobView {
        try await call(.DELETE, "/v1/jobs/\(id)")
    }

    public func pause(_ id: Int64) async throws -> JobView {
        try await call(.POST, "/v1/jobs/\(id)/pause")
    }

    public func resume(_ id: Int64) async throws -> JobView {
        try await call(.POST, "/v1/jobs/\(id)/resume")
    }

    /// Why a job is or is not running.
    public func explain(_ id: Int64) async throws -> ExplainView {
        try await call(.GET, "/v1/jobs/\(id)/explain")
    }

    /// Evaluates the queue against a hypothetical world, changing nothing.
    public func simulate(_ hypothesis: SimulateRequest) async throws -> SimulationView {
        try await call(.POST, "/v1/simulate", body: hypothesis)
    }

    /// The daemon's recent samples of pressure, CPU and memory; asking keeps it sampling for a while.
    public func samples() async throws -> SamplesView {
        try await call(.GET, "/v1/samples")
    }

    /// One page of events after `after`, without waiting for new ones.
    public func events(after: Int64, limit: Int = 1000) async throws -> EventPageView {
        try await call(
            .GET, "/v1/events", query: [("after", String(after)), ("limit", String(limit))],
            headers: [("accept", "application/json")])
    }

    /// Every event after `after`, then new ones as they happen, until the task is cancelled.
    /// Reconnects after a dropped connection from the last event seen, so nothing is missed.
    public func followEvents(after: Int64) -> AsyncThrowingStream<EventView, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var cursor = after
                do {
                    while !Task.isCancelled {
                        do {
                            try await self.streamEvents(after: cursor) { event in
                                cursor = event.seq
                                continuation.yield(event)
                            }
                        } catch let error as LullClientError {
                            throw error
                        } catch where !Task.isCancelled {
                            // The stream broke (daemon restart, for instance): wait a moment, resume from the cursor.
                            try await Task.sleep(for: .milliseconds(200))
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Task.isCancelled ? nil : error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func streamEvents(after: Int64, _ deliver: (EventView) -> Void) async throws {
        let request = try makeRequest(.GET, "/v1/events", query: [("after", String(after))], headers: [("accept", "text/event-stream")])
        let response = try await execute(request, timeout: .hours(24 * 365))
        guard response.status == .ok else {
            throw try await apiError(response)
        }
        var parser = ServerSentEventParser()
        let decoder = WireJSON.decoder()
        for try await chunk in response.body {
            for message in parser.feed(chunk.readableBytesView) {
                deliver(try decoder.decode(EventView.self, from: Data(message.data.utf8)))
            }
        }
    }

    // MARK: Plumbing

    private func call<Response: Decodable>(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [], headers: [(String, String)] = []
    ) async throws -> Response {
        try await send(try makeRequest(method, path, query: query, headers: headers))
    }

    private func call<Body: Encodable, Response: Decodable>(
        _ method: HTTPMethod, _ path: String, body: Body
    ) async throws -> Response {
        var request = try makeRequest(method, path, query: [], headers: [("content-type", "application/json")])
        request.body = .bytes(ByteBuffer(data: try WireJSON.encoder().encode(body)))
        return try await send(request)
    }

    private func send<Response: Decodable>(_ request: HTTPClientRequest) async throws -> Response {
        let response = try await execute(request, timeout: timeout)
        guard (200..<300).contains(response.status.code) else {
            throw try await apiError(response)
        }
        let body = try await response.body.collect(upTo: 64 << 20)
        do {
            return try WireJSON.decoder().decode(Response.self, from: Data(buffer: body))
        } catch {
            throw LullClientError.protocolViolation("could not decode the daemon's answer: \(error)")
        }
    }

    private func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        do {
            return try await http.execute(request, timeout: timeout)
        } catch {
            throw LullClientError.unreachable(socketPath: socketPath, reason: Self.reason(for: socketPath, error))
        }
    }

    private func makeRequest(
        _ method: HTTPMethod, _ path: String, query: [(String, String)], headers: [(String, String)]
    ) throws -> HTTPClientRequest {
        var components = URLComponents()
        components.path = path
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        guard let uri = components.string, let url = URL(httpURLWithSocketPath: socketPath, uri: uri) else {
            throw LullClientError.protocolViolation("cannot build a request URL for \(path) on \(socketPath)")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return request
    }

    private func apiError(_ response: HTTPClientResponse) async throws -> LullClientError {
        let body = try await response.body.collect(upTo: 1 << 20)
        if let decoded = try? WireJSON.decoder().decode(APIErrorBody.self, from: Data(buffer: body)) {
            return .api(status: Int(response.status.code), decoded.error)
        }
        return .protocolViolation("daemon answered \(response.status.code) without an error body")
    }

    private static func reason(for socketPath: String, _ error: any Error) -> UnreachableReason {
        var info = stat()
        if stat(socketPath, &info) != 0 { return errno == EACCES ? .permissionDenied : .noSocket }
        if access(socketPath, R_OK | W_OK) != 0 { return .permissionDenied }
        return .refused("\(error)")
    }
}

/// Why a call did not get an answer, or the answer was an error.
public enum LullClientError: Error, Sendable, CustomStringConvertible {
    /// The daemon could not be reached at all.
    case unreachable(socketPath: String, reason: UnreachableReason)
    /// The daemon answered with an API error.
    case api(status: Int, APIErrorBody.Detail)
    /// The daemon answered something this client does not understand.
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .unreachable(let path, .noSocket):
            "lulld is not running (no socket at \(path)). Start it with `lulld` (or `systemctl start lulld`), or point LULL_SOCKET / --socket at its socket."
        case .unreachable(let path, .permissionDenied):
            "permission denied on \(path). Ask an admin to add you to the socket's group, or use your own user instance."
        case .unreachable(let path, .refused(let detail)):
            "cannot talk to lulld on \(path) (\(detail)). Is it running? Check `journalctl -u lulld` or start it with `lulld`."
        case .api(_, let detail):
            detail.message
        case .protocolViolation(let message):
            message
        }
    }
}

public enum UnreachableReason: Sendable, Equatable {
    case noSocket
    case permissionDenied
    case refused(String)
}
