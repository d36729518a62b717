import AsyncHTTPClient
import Foundation
import LullAPI
import LullCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A typed client for the Lull control API over its Unix socket. `lullctl` is built on it.
public final class LullClient: Sendable {
    public let socketPath: String
    private let timeout: Duration
    private let calls: any ControlExchange
    let http = LazyHTTPClient()
    /// The event stream's: lulld sends a comment at least every 15 s, so a longer silence is a
    /// daemon that stopped (SIGSTOP, a hung machine), and the stream is connected again.
    let streamHTTP: LazyHTTPClient
    let eventStreamSilence: Duration

    /// - Parameters:
    ///   - timeout: how long a call waits for the daemon to accept its connection, and then for
    ///     its answer; the event stream has no such limit.
    ///   - style: how calls reach the daemon; the event stream always uses the event loops.
    ///   - eventStreamSilence: how long the event stream may go without a byte before it is
    ///     taken for broken and connected again.
    public init(
        socketPath: String,
        timeout: Duration = .seconds(30),
        style: CallStyle = .eventLoop,
        eventStreamSilence: Duration = .seconds(45)
    ) {
        self.socketPath = socketPath
        self.timeout = timeout
        self.eventStreamSilence = eventStreamSilence
        streamHTTP = LazyHTTPClient(readTimeout: eventStreamSilence)
        switch style {
        case .eventLoop: calls = EventLoopExchange(socketPath: socketPath, http: http)
        case .blockingSocket: calls = BlockingSocketExchange(socketPath: socketPath)
        }
    }

    /// Calls made through `exchange` (the event stream still goes to `socketPath`): for tests
    /// that answer calls in-process, without a socket.
    package init(socketPath: String, timeout: Duration = .seconds(30), exchange: any ControlExchange) {
        self.socketPath = socketPath
        self.timeout = timeout
        eventStreamSilence = .seconds(45)
        streamHTTP = LazyHTTPClient(readTimeout: eventStreamSilence)
        calls = exchange
    }

    /// Releases the connection pool, if one was made; call once when done.
    public func shutdown() async {
        await http.shutdown()
        await streamHTTP.shutdown()
    }

    public func status() async throws -> StatusView {
        try await call(.GET, "/v1/status")
    }

    /// Submits one job and decodes the answer as `Answer`: the whole `JobView`, or only what a
    /// one-line receipt (`lullctl submit`) prints, `SubmissionReceipt`, which spares decoding the
    /// rest.
    public func submit<Answer: Decodable>(
        _ submission: JobSubmission,
        answer: Answer.Type = JobView.self
    ) async throws -> Answer {
        try await call(.POST, "/v1/jobs", body: submission)
    }

    public func submit(batch: [JobSubmission]) async throws -> [JobView] {
        let view: BatchView = try await call(.POST, "/v1/jobs:batch", body: BatchSubmission(jobs: batch))
        return view.jobs
    }

    public func list(
        state: String? = nil,
        label: String? = nil,
        jobClass: String? = nil,
        limit: Int? = nil,
        after: Int64? = nil,
        owner: UInt32? = nil
    ) async throws -> JobListView {
        var query: [(String, String)] = []
        if let state { query.append(("state", state)) }
        if let label { query.append(("label", label)) }
        if let jobClass { query.append(("class", jobClass)) }
        if let owner { query.append(("owner", String(owner))) }
        if let limit { query.append(("limit", String(limit))) }
        if let after { query.append(("after", String(after))) }
        return try await call(.GET, "/v1/jobs", query: query)
    }

    /// Every job a listing matches, in id order: page after page of `pageSize` jobs, from
    /// `after` to the end.
    public func allJobs(
        state: String? = nil,
        label: String? = nil,
        jobClass: String? = nil,
        after: Int64? = nil,
        pageSize: Int = JobFilter.maxLimit,
        owner: UInt32? = nil
    ) async throws -> [JobView] {
        var jobs: [JobView] = []
        var cursor = after
        repeat {
            let page = try await list(
                state: state,
                label: label,
                jobClass: jobClass,
                limit: pageSize,
                after: cursor,
                owner: owner
            )
            jobs += page.jobs
            cursor = page.nextAfter
        } while cursor != nil
        return jobs
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

    /// A run job's output log from byte `offset` on (`GET /v1/jobs/{id}/output`), as bytes.
    public func output(_ id: Int64, offset: Int64 = 0) async throws -> [UInt8] {
        try await outputPage(id, offset: offset).bytes
    }

    /// A run job's log from byte `offset` on, with the log's whole size (`Lull-Log-Size`): a
    /// size below the offset means the log was cut to its newest bytes or a new attempt began
    /// it again. A log emptied while it was being sent is asked for once more.
    public func outputPage(_ id: Int64, offset: Int64 = 0) async throws -> (bytes: [UInt8], logSize: Int64?) {
        let query = offset == 0 ? [] : [("offset", String(offset))]
        let request = ControlRequest(
            method: HTTPMethod.GET.rawValue,
            target: try Self.target("/v1/jobs/\(id)/output", query),
            headers: [("accept", "text/plain")]
        )
        let answer: ControlAnswer
        do {
            answer = try await calls.exchange(request, timeout: timeout)
        } catch LullClientError.unreachable(let path, let reason) {
            // A daemon that did not answer in time is not waited for twice.
            if case .noAnswer = reason { throw LullClientError.unreachable(socketPath: path, reason: reason) }
            answer = try await calls.exchange(request, timeout: timeout)
        }
        guard (200..<300).contains(answer.status) else { throw Self.apiError(answer) }
        return (answer.body, answer.headers["lull-log-size"].flatMap { Int64($0) })
    }

    /// Evaluates the queue against a hypothetical world, changing nothing.
    public func simulate(_ hypothesis: SimulateRequest) async throws -> SimulationView {
        try await call(.POST, "/v1/simulate", body: hypothesis)
    }

    /// The daemon's recent samples of pressure, CPU and memory; asking keeps it sampling for a while.
    public func samples() async throws -> SamplesView {
        try await call(.GET, "/v1/samples")
    }

    /// Asks the daemon to read its config again (root or the daemon's own user only); answers
    /// after the reload. A refused config is `LullClientError.api(422, …)` naming file:line.
    public func reload() async throws -> ReloadView {
        try await call(.POST, "/v1/reload")
    }

    /// One page of events after `after`, without waiting for new ones.
    public func events(after: Int64, limit: Int = 1000) async throws -> EventPageView {
        try await call(
            .GET,
            "/v1/events",
            query: [("after", String(after)), ("limit", String(limit))],
            headers: [("accept", "application/json")]
        )
    }

    // MARK: Plumbing

    private func call<Response: Decodable>(
        _ method: HTTPMethod,
        _ path: String,
        query: [(String, String)] = [],
        headers: [(String, String)] = []
    ) async throws -> Response {
        try await send(ControlRequest(method: method.rawValue, target: try Self.target(path, query), headers: headers))
    }

    private func call<Body: Encodable, Response: Decodable>(
        _ method: HTTPMethod,
        _ path: String,
        body: Body
    ) async throws -> Response {
        try await send(
            ControlRequest(
                method: method.rawValue,
                target: path,
                headers: [("content-type", "application/json")],
                body: Array(try WireJSON.encoder().encode(body))
            )
        )
    }

    private func send<Response: Decodable>(_ request: ControlRequest) async throws -> Response {
        let answer = try await calls.exchange(request, timeout: timeout)
        guard (200..<300).contains(answer.status) else { throw Self.apiError(answer) }
        do {
            return try WireJSON.decoder().decode(Response.self, from: Data(answer.body))
        } catch {
            throw LullClientError.protocolViolation("could not decode the daemon's answer: \(error)")
        }
    }

    /// Path plus percent-encoded query.
    static func target(_ path: String, _ query: [(String, String)]) throws -> String {
        var components = URLComponents()
        components.path = path
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        guard let target = components.string else {
            throw LullClientError.protocolViolation("cannot build a request for \(path)")
        }
        return target
    }

    static func apiError(_ answer: ControlAnswer) -> LullClientError {
        if let decoded = try? WireJSON.decoder().decode(APIErrorBody.self, from: Data(answer.body)) {
            return .api(status: answer.status, decoded.error)
        }
        return .protocolViolation("daemon answered \(answer.status) without an error body")
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
            "lulld is not running (no socket at \(path)). Start it with \(Self.howToStart(path)), or point LULL_SOCKET / --socket at its socket."
        case .unreachable(let path, .permissionDenied):
            "permission denied on \(path). Ask an admin to add you to the socket's group (ls -l shows it), or run your own user instance with lulld and leave LULL_SOCKET unset."
        case .unreachable(let path, .refused(let detail)):
            "cannot talk to lulld on \(path) (\(detail)). Is it running? Check \(Self.whereItLogs(path)) or start it with \(Self.howToStart(path))."
        case .unreachable(let path, .noAnswer(let limit, let accepted)):
            "lulld at \(path) \(accepted ? "accepted the connection but did not answer" : "did not accept the connection") within \(Self.seconds(limit)). "
                + "It may be stuck or overloaded: check \(Self.howToInspect(path)) and \(Self.whereItLogs(path)), or wait longer with --call-timeout."
        case .api(_, let detail):
            detail.message
        case .protocolViolation(let message):
            "\(message). Is the socket really lulld's, and the same version as this client? Compare lullctl --version with lullctl status."
        }
    }
}

extension LullClientError {
    /// The system service's socket (the unit's `/run/lull/lull.sock`), or a user instance's.
    static func isSystemSocket(_ path: String) -> Bool {
        path.hasPrefix("/run/lull/") || path.hasPrefix("/var/run/lull/")
    }

    static func howToStart(_ path: String) -> String {
        isSystemSocket(path)
            ? "`systemctl start lulld`" : "`lulld` (or `systemctl --user start lulld`, if installed as a user service)"
    }

    static func howToInspect(_ path: String) -> String {
        isSystemSocket(path) ? "`systemctl status lulld`" : "`systemctl --user status lulld`"
    }

    /// "30 s", "0.5 s".
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    static func whereItLogs(_ path: String) -> String {
        isSystemSocket(path)
            ? "`journalctl -u lulld`" : "lulld's output (`journalctl --user -u lulld` for the user service)"
    }
}

public enum UnreachableReason: Sendable, Equatable {
    case noSocket
    case permissionDenied
    case refused(String)
    /// The daemon did not take the connection (`accepted` false: its backlog is full) or did not
    /// answer the request within the client's timeout.
    case noAnswer(within: Duration, accepted: Bool)

    /// What the socket file says about a failed call: missing, not ours to use, or there but
    /// not answering (`detail` says how).
    static func diagnose(_ socketPath: String, _ detail: String) -> UnreachableReason {
        // A full listen backlog: a Unix socket's connect says EAGAIN at once, where a TCP one
        // would wait. The daemon is there, but busy (or stopped).
        if detail.contains("(errno: \(EAGAIN))") {
            return .noAnswer(within: EventLoopExchange.connectTimeout, accepted: false)
        }
        var info = stat()
        if stat(socketPath, &info) != 0 { return errno == EACCES ? .permissionDenied : .noSocket }
        if access(socketPath, R_OK | W_OK) != 0 { return .permissionDenied }
        return .refused(detail)
    }
}
