/// One call to the daemon: a request and its whole answer. `LullClient` makes every call but
/// the event stream through one of these. Package access: tests answer calls in-process.
package protocol ControlExchange: Sendable {
    func exchange(_ request: ControlRequest, timeout: Duration) async throws -> ControlAnswer
}

package struct ControlRequest: Sendable {
    package var method: String
    /// Path and query, e.g. `/v1/jobs?state=queued`.
    package var target: String
    package var headers: [(String, String)] = []
    package var body: [UInt8]?
}

package struct ControlAnswer: Sendable {
    package var status: Int
    /// The answer's fields, by lower-cased name.
    package var headers: [String: String]
    package var body: [UInt8]

    package init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
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
