import AsyncHTTPClient
import LullCore
import NIOCore
import Foundation
import NIOHTTP1
import NIOPosix

/// Turns transport errors and HTTP statuses into `JobFailure`s with stable codes:
/// retryable for what may heal by itself (connection trouble, timeouts, 408, 429, 5xx),
/// permanent for the rest.
enum TransferFailures {
    static func httpStatus(_ status: HTTPResponseStatus, headers: HTTPHeaders = [:], now: Date = Date()) -> JobFailure {
        let code = Int(status.code)
        let retryable = code == 408 || code == 429 || code >= 500
        return JobFailure(
            code: "http_\(code)", message: "server answered \(code) \(status.reasonPhrase)", retryable: retryable,
            retryAfter: headers.first(name: "retry-after").flatMap { retryAfter($0, now: now) })
    }

    /// `Retry-After` as seconds from now: either delay-seconds or an HTTP date.
    static func retryAfter(_ value: String, now: Date) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    static func idle(limit: Duration) -> JobFailure {
        JobFailure(code: "idle_timeout", message: "no bytes moved for \(limit.components.seconds) s", retryable: true)
    }

    static func classify(_ error: any Error) -> JobFailure {
        if let failure = error as? JobFailure { return failure }
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout:
                return JobFailure(code: "connect_timeout", message: "timed out connecting to the server", retryable: true)
            case .readTimeout:
                return JobFailure(code: "idle_timeout", message: "the server sent nothing for too long", retryable: true)
            case .deadlineExceeded:
                return JobFailure(code: "total_timeout", message: "the transfer took longer than its total timeout", retryable: true)
            case .remoteConnectionClosed:
                return JobFailure(code: "connection_closed", message: "the server closed the connection", retryable: true)
            case .redirectLimitReached, .redirectCycleDetected:
                return JobFailure(code: "too_many_redirects", message: "the server redirected too often", retryable: false)
            case .invalidURL, .emptyHost, .emptyScheme:
                return JobFailure(code: "invalid_url", message: "\(client)", retryable: false)
            default:
                return JobFailure(code: "http_client_error", message: "\(client)", retryable: true)
            }
        }
        if let io = error as? IOError {
            return JobFailure(code: "network_error", message: io.description, retryable: true)
        }
        if error is NIOConnectionError {
            return JobFailure(code: "connect_failed", message: "could not connect to the server", retryable: true)
        }
        return JobFailure(code: "network_error", message: "\(error)", retryable: true)
    }
}
