import AsyncHTTPClient
import Foundation
import LullCore
import NIOCore

/// Keeps what a client may want from a push or upload response: the status, a few headers and
/// the start of the body (the rest is read and dropped so the connection can be reused, up to
/// `drainedPastKept`; past that the connection is closed).
/// Every chunk of the body touches the attempt's watchdog: a server that has already answered
/// but sends its body slowly is still moving bytes, and failing it as idle would send a push or
/// upload the server has accepted a second time.
enum ResponseCapture {
    static let keptHeaders = [
        "content-type", "location", "etag", "last-modified", "retry-after", "upload-offset", "tus-resumable",
    ]

    /// How much of an answer's body past what is kept is read, to reuse the connection.
    static let drainedPastKept = 1 << 20

    static func result(
        _ response: HTTPClientResponse,
        maxBody: Int,
        bytes: Int64?,
        watchdog: TransferWatchdog
    ) async throws -> JobResult {
        var body: [UInt8] = []
        var read = 0
        for try await chunk in response.body {
            watchdog.touch()
            if body.count < maxBody { body += chunk.readableBytesView.prefix(maxBody - body.count) }
            read += chunk.readableBytes
            // The status already says the request was taken: an answer that goes on and on must
            // not hold the attempt until its total timeout, which would send the request again.
            if read > maxBody + Self.drainedPastKept { break }
        }
        var headers: [String: String] = [:]
        for name in keptHeaders {
            if let value = response.headers.first(name: name) { headers[name] = value }
        }
        let text = String(validating: body, as: UTF8.self) ?? "base64:" + Data(body).base64EncodedString()
        return JobResult(
            httpStatus: Int(response.status.code),
            bytes: bytes,
            responseHeaders: headers.isEmpty ? nil : headers,
            responseBody: body.isEmpty ? nil : text
        )
    }

    /// Throws the failure a non-2xx status means, after draining a little of the body.
    static func requireSuccess(_ response: HTTPClientResponse, watchdog: TransferWatchdog) async throws {
        guard !(200..<300).contains(response.status.code) else { return }
        try? await drain(response, upTo: 64 << 10, watchdog: watchdog)
        throw TransferFailures.httpStatus(response.status, headers: response.headers)
    }

    /// Reads and drops the body, up to `limit` bytes (past it the connection is not worth
    /// keeping: what is left is abandoned).
    static func drain(_ response: HTTPClientResponse, upTo limit: Int, watchdog: TransferWatchdog) async throws {
        var read = 0
        for try await chunk in response.body {
            watchdog.touch()
            read += chunk.readableBytes
            if read > limit { return }
        }
    }
}
