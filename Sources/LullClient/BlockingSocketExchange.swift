import LullAPI

#if canImport(Glibc)
import Glibc
#endif

/// A call as plain blocking socket I/O: connect, write the request with `Connection: close`,
/// read the answer (the daemon always sends `Content-Length` for calls), close.
struct BlockingSocketExchange: ControlExchange {
    let socketPath: String

    func exchange(_ request: ControlRequest, timeout: Duration) async throws -> ControlAnswer {
        try perform(request, timeout: timeout)
    }

    func perform(_ request: ControlRequest, timeout: Duration) throws -> ControlAnswer {
        let stream: UnixSocketStream
        do {
            stream = try UnixSocketStream(connectingTo: socketPath, timeout: timeout)
        } catch .system(call: "connect", errno: EAGAIN) {
            // A full backlog: connect waits up to the send timeout for the daemon to accept.
            throw LullClientError.unreachable(
                socketPath: socketPath,
                reason: .noAnswer(within: timeout, accepted: false)
            )
        } catch {
            throw unreachable("\(error)")
        }
        var sendFailure: (any Error)?
        do {
            try stream.send(
                HTTPFraming.request(
                    request.method,
                    request.target,
                    headers: request.headers,
                    body: request.body,
                    close: true
                )
            )
        } catch {
            // The daemon refuses an oversized body with 413 before reading it, then closes, so
            // the rest of the body meets a broken pipe: its answer is still there to read.
            sendFailure = error
        }
        var reader = HTTPResponseReader(bufferSize: 16 * 1024)
        do throws(HTTPResponseReadError) {
            // Closed before a byte of the answer is as incomplete as closed half-way, for one call.
            guard let answer = try reader.next(from: stream) else { throw .closedMidAnswer }
            return ControlAnswer(status: answer.status, headers: answer.headers, body: answer.body)
        } catch .framing(let error) {
            throw LullClientError.protocolViolation(error.description)
        } catch .socket(.timedOut) {
            throw LullClientError.unreachable(
                socketPath: socketPath,
                reason: .noAnswer(within: timeout, accepted: true)
            )
        } catch {
            throw unreachable(sendFailure.map { "\($0)" } ?? error.description)
        }
    }

    private func unreachable(_ detail: String) -> LullClientError {
        .unreachable(socketPath: socketPath, reason: UnreachableReason.diagnose(socketPath, detail))
    }
}
