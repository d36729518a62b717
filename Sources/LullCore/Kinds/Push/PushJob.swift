import Foundation

/// Send a small inline payload (a webhook, a report, a telemetry batch) with POST, PUT or PATCH.
/// Its `Codable` form is the stored spec's (property names); the wire form is `JobSubmission`'s.
public struct PushJob: KindPayload {
    public static let kind = JobKind.push

    public var url: String
    /// POST, PUT or PATCH; nil sends POST.
    public var method: String?
    public var headers: [String: String]?
    public var contentType: String?
    /// The payload, already decoded from text or base64. The store keeps it beside the spec.
    public var body: [UInt8]?
    /// Sent as `Idempotency-Key` on every attempt; made at submission when the client gives none.
    public var idempotencyKey: String?
    /// A PEM file of certificate authorities trusted besides the system's, read with the owner's rights.
    public var caFile: String?
    /// Bytes the job expects to send, for budgets and coalescing.
    public var expectedBytesUp: Int64?

    public init(
        url: String,
        method: String? = nil,
        headers: [String: String]? = nil,
        contentType: String? = nil,
        body: [UInt8]? = nil,
        idempotencyKey: String? = nil,
        caFile: String? = nil,
        expectedBytesUp: Int64? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.contentType = contentType
        self.body = body
        self.idempotencyKey = idempotencyKey
        self.caFile = caFile
        self.expectedBytesUp = expectedBytesUp
    }

    public var payload: JobPayload { .push(self) }
    public var host: String? { TransferHost.of(url) }
    public var expectedBytesDown: Int64? { nil }
    public var texts: [(field: String, text: String?)] {
        [
            ("url", url), ("method", method), ("content_type", contentType), ("idempotency_key", idempotencyKey),
            ("ca_file", caFile),
        ]
    }
    public var progressDirection: ByteDirection { .sent }
    public var journalFields: [String: String] { ["url": url] }
    public var summary: String { "push \(method ?? "POST") \(url)" }
    public var detachedBytes: [UInt8]? { body }

    public func attaching(_ bytes: [UInt8]?) -> PushJob {
        var job = self
        job.body = bytes
        return job
    }

    /// The client's own `Idempotency-Key` header wins, so every retry carries the same key.
    public func prepared() -> PushJob {
        guard idempotencyKey == nil else { return self }
        var job = self
        let header = headers?.first { $0.key.lowercased() == "idempotency-key" }
        job.idempotencyKey = header?.value ?? UUID().uuidString.lowercased()
        return job
    }

    /// Each occurrence of a periodic push is a new request to the server, with a key of its own.
    public func nextOccurrence(newRequestKey: () -> String) -> PushJob {
        var job = self
        job.idempotencyKey = newRequestKey()
        return job
    }

    public func validate(with validator: JobSpecValidator) throws(ValidationError) {
        try validator.validateTransfer(url: url, headers: headers, caFile: caFile)
        try validator.validateByteCount(expectedBytesUp, field: "expected_bytes_up")
        if let method, !["POST", "PUT", "PATCH"].contains(method) {
            throw ValidationError(
                .invalidValue,
                field: "method",
                "push method must be POST, PUT or PATCH, not \"\(method)\""
            )
        }
        let limit = validator.limits.maxPushBodyBytes
        if let body, body.count > limit {
            throw ValidationError(
                .tooLarge,
                field: "body",
                "push body is \(body.count) bytes; the limit is \(limit) bytes (limits.max_push_body_bytes)"
            )
        }
    }

    public func writeStored(_ section: StoredSpecSection, to json: inout JSONWriter) {
        switch section {
        case .target:
            json.member("url", url)
            json.member("method", method)
            json.member("headers", headers)
            json.member("contentType", contentType)
            if let body {
                json.key("body")
                json.array(body) { json, byte in json.integer(byte) }
            }
        case .details:
            json.member("idempotencyKey", idempotencyKey)
        case .bytesUp:
            json.member("expectedBytesUp", expectedBytesUp)
        case .trailing:
            json.member("caFile", caFile)
        }
    }
}
