/// One call to the daemon: a request and its whole answer. `LullClient` makes every call but
/// the event stream through one of these.
protocol ControlExchange: Sendable {
    func exchange(_ request: ControlRequest, timeout: Duration) async throws -> ControlAnswer
}

struct ControlRequest: Sendable {
    var method: String
    /// Path and query, e.g. `/v1/jobs?state=queued`.
    var target: String
    var headers: [(String, String)] = []
    var body: [UInt8]?
}

struct ControlAnswer: Sendable {
    var status: Int
    var body: [UInt8]
}

/// How a `LullClient` makes its calls.
public enum CallStyle: Sendable {
    /// Through AsyncHTTPClient on SwiftNIO's event loops: for programs that make many calls,
    /// concurrently, from async code.
    case eventLoop
    /// One blocking exchange on a fresh Unix-socket connection per call, with no event loop
    /// or extra thread to start: for a command-line tool that makes a call or two and exits,
    /// where starting the event loops costs more than the call. Blocks the calling thread.
    case blockingSocket
}
