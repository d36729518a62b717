/// A failure code as a metric label value. Every label value is a time series kept for as long
/// as Prometheus keeps data, so only the failure codes the daemon defines (the table "Failure
/// codes" in docs/api.md) and `http_` with a three-digit status pass; anything else — a code
/// added without being listed here, or text that came from outside — is counted as `other`.
enum FailureCodeLabel {
    static let other = "other"

    static let known: Set<String> = [
        "connect_timeout", "connect_failed", "dns_failed", "tls_failed", "tls_untrusted", "tls_expired",
        "tls_name_mismatch",
        "ca_file_invalid", "connection_reset", "idle_timeout",
        "total_timeout", "connection_closed", "network_error", "http_client_error", "too_many_redirects",
        "proxy_auth_failed", "proxy_unusable", "invalid_url", "truncated", "too_large", "size_mismatch",
        "checksum_mismatch",
        "no_space", "destination_not_allowed", "permission_denied", "symlink_refused", "no_such_file", "file_error",
        "source_changed", "tus_upload_gone", "tus_offset_conflict", "tus_incomplete", "tus_protocol", "tus_error",
        "tus_too_large",
        "exit_status", "command_not_found", "working_directory_unavailable", "exec_failed", "account_unavailable",
        "start_stuck",
        "memory_limit",
        "unit_failed", "unit_not_found", "not_enforceable",
        "invalid_job", "unreadable_job", "unsupported_kind", "internal_error",
    ]

    static func value(_ code: String) -> String {
        if known.contains(code) || isHTTPStatus(code) { return code }
        return other
    }

    /// `http_100` … `http_599`: at most 500 values, whatever a server answers.
    private static func isHTTPStatus(_ code: String) -> Bool {
        let digits = Array(code.utf8.dropFirst("http_".utf8.count))
        return code.hasPrefix("http_") && digits.count == 3
            && (UInt8(ascii: "1")...UInt8(ascii: "5")).contains(digits[0])
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
