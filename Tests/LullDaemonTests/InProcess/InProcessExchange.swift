import LullClient

/// Carries a `LullClient`'s calls to an in-process router instead of a socket, so tests keep
/// the typed client (and its error mapping) without a daemon process. This file imports
/// LullClient alone: its `ControlRequest` is not the daemon's.
struct InProcessExchange: ControlExchange {
    typealias Answer =
        @Sendable (
            _ method: String, _ target: String, _ headers: [(String, String)], _ body: [UInt8]?
        ) async -> (status: Int, body: [UInt8])

    let answer: Answer

    func exchange(_ request: ControlRequest, timeout: Duration) async throws -> ControlAnswer {
        let (status, body) = await answer(request.method, request.target, request.headers, request.body)
        return ControlAnswer(status: status, body: body)
    }
}
