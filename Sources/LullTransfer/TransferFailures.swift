import AsyncHTTPClient
import Foundation
import LullCore
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Turns transport errors and HTTP statuses into `JobFailure`s with stable codes:
/// retryable for what may heal by itself (connection trouble, timeouts, 408, 429, 5xx, a TLS
/// handshake that failed for a reason other than the certificate), permanent for the rest.
enum TransferFailures {
    static func httpStatus(_ status: HTTPResponseStatus, headers: HTTPHeaders = [:], now: Date = Date()) -> JobFailure {
        let code = Int(status.code)
        let retryable = code == 408 || code == 429 || code >= 500
        return JobFailure(
            code: "http_\(code)",
            message: "server answered \(code) \(status.reasonPhrase)",
            retryable: retryable,
            retryAfter: headers.first(name: "retry-after").flatMap { retryAfter($0, now: now) }
        )
    }

    /// `Retry-After` as seconds from now: either delay-seconds (digits only, RFC 9110; `Double`
    /// would also take `inf`, `1e300` and hex) or an HTTP date, at most `longestRetryAfter`.
    static func retryAfter(_ value: String, now: Date) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return min(Double(trimmed) ?? RetryPolicy.longestRetryAfter, RetryPolicy.longestRetryAfter)
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), RetryPolicy.longestRetryAfter)
    }

    static func idle(limit: Duration) -> JobFailure {
        JobFailure(code: "idle_timeout", message: "no bytes moved for \(limit.components.seconds) s", retryable: true)
    }

    static func total(limit: Duration) -> JobFailure {
        JobFailure(
            code: "total_timeout",
            message: "the attempt ran past its total timeout of \(limit.components.seconds) s",
            retryable: true
        )
    }

    static func classify(_ error: any Error) -> JobFailure {
        if let failure = error as? JobFailure { return failure }
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout:
                return JobFailure(
                    code: "connect_timeout",
                    message: "timed out connecting to the server",
                    retryable: true
                )
            case .readTimeout:
                return JobFailure(
                    code: "idle_timeout",
                    message: "the server sent nothing for too long",
                    retryable: true
                )
            case .deadlineExceeded:
                return JobFailure(
                    code: "total_timeout",
                    message: "the transfer took longer than its total timeout",
                    retryable: true
                )
            case .remoteConnectionClosed:
                return JobFailure(
                    code: "connection_closed",
                    message: "the server closed the connection",
                    retryable: true
                )
            case .redirectLimitReached, .redirectCycleDetected:
                return JobFailure(
                    code: "too_many_redirects",
                    message: "the server redirected too often",
                    retryable: false
                )
            case .proxyAuthenticationRequired:
                return JobFailure(
                    code: "proxy_auth_failed",
                    message: "the proxy answered 407: check the user and password in http_proxy / https_proxy",
                    retryable: false
                )
            case .invalidURL, .emptyHost, .emptyScheme:
                return JobFailure(code: "invalid_url", message: "\(client)", retryable: false)
            default:
                return JobFailure(code: "http_client_error", message: "\(client)", retryable: true)
            }
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNRESET:
                return JobFailure(code: "connection_reset", message: "the server reset the connection", retryable: true)
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT:
                return JobFailure(
                    code: "connect_failed",
                    message: "could not connect: \(String(cString: strerror(io.errnoCode)))",
                    retryable: true
                )
            default:
                break
            }
            return JobFailure(code: "network_error", message: io.description, retryable: true)
        }
        if let parser = error as? HTTPParserError, case .invalidEOFState = parser {
            return JobFailure(
                code: "truncated",
                message: "the connection ended in the middle of the server's response",
                retryable: true
            )
        }
        if let connection = error as? NIOConnectionError {
            return connectFailure(connection)
        }
        if let kind = TLSDiagnosis.Kind(error) {
            return TLSDiagnosis.describe(kind, host: "the server", chain: nil, extraTrust: false, now: Date())
        }
        if let tls = error as? NIOSSLError {
            return JobFailure(
                code: "tls_failed",
                message: "the TLS handshake with the server failed: \(tls)",
                retryable: true
            )
        }
        if let tls = error as? BoringSSLError {
            return JobFailure(code: "tls_failed", message: "TLS failed: \(tls)", retryable: true)
        }
        return JobFailure(code: "network_error", message: "\(error)", retryable: true)
    }

    /// Names what failed on the way to a connection: the name lookup, or the connection itself.
    static func connectFailure(_ error: NIOConnectionError) -> JobFailure {
        let target = "\(error.host):\(error.port)"
        if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
            let reason = (error.dnsAError ?? error.dnsAAAAError).map { "\($0)" } ?? "no address"
            return JobFailure(
                code: "dns_failed",
                message: "could not resolve \(error.host): \(reason)",
                retryable: true
            )
        }
        let reasons = error.connectionErrors.map { "\($0.target): \($0.error)" }.joined(separator: "; ")
        return JobFailure(
            code: "connect_failed",
            message: "could not connect to \(target)" + (reasons.isEmpty ? "" : " (\(reasons))"),
            retryable: true
        )
    }
}
