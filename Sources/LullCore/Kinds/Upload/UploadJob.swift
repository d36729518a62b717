/// Send a file: as the request body, as one part of a form, or resumably with tus.
/// Its `Codable` form is the stored spec's (property names); the wire form is `JobSubmission`'s.
public struct UploadJob: KindPayload {
    public static let kind = JobKind.upload

    public var url: String
    /// Absolute path of the file to send.
    public var source: String
    /// PUT or POST; nil takes the protocol's (PUT for raw, POST for multipart and tus).
    public var method: String?
    public var headers: [String: String]?
    public var contentType: String?
    /// How the file is sent; nil is `raw`.
    public var uploadProtocol: UploadProtocol?
    /// multipart: the form field that carries the file.
    public var formField: String?
    /// tus: the most bytes one `PATCH` carries (nil: `[transfers] tus_chunk_bytes`).
    public var chunkBytes: Int64?
    /// A PEM file of certificate authorities trusted besides the system's, read with the owner's rights.
    public var caFile: String?
    /// Bytes the job expects to send, for budgets and coalescing.
    public var expectedBytesUp: Int64?

    public init(
        url: String,
        source: String,
        method: String? = nil,
        headers: [String: String]? = nil,
        contentType: String? = nil,
        uploadProtocol: UploadProtocol? = nil,
        formField: String? = nil,
        chunkBytes: Int64? = nil,
        caFile: String? = nil,
        expectedBytesUp: Int64? = nil
    ) {
        self.url = url
        self.source = source
        self.method = method
        self.headers = headers
        self.contentType = contentType
        self.uploadProtocol = uploadProtocol
        self.formField = formField
        self.chunkBytes = chunkBytes
        self.caFile = caFile
        self.expectedBytesUp = expectedBytesUp
    }

    /// What `chunk_bytes` and `[transfers] tus_chunk_bytes` may be: 64 KiB, the least a `PATCH`
    /// shrinks to after a `413`, to 1 TiB.
    public static let chunkBytesRange: ClosedRange<Int64> = (64 << 10)...(1 << 40)

    public var payload: JobPayload { .upload(self) }
    public var host: String? { TransferHost.of(url) }
    public var expectedBytesDown: Int64? { nil }
    public var texts: [(field: String, text: String?)] {
        [
            ("url", url), ("source", source), ("method", method), ("content_type", contentType),
            ("form_field", formField), ("ca_file", caFile),
        ]
    }
    public var progressDirection: ByteDirection { .sent }
    public var journalFields: [String: String] { ["url": url] }
    public var summary: String { "upload \(source) → \(url)" }

    public func validate(with validator: JobSpecValidator) throws(ValidationError) {
        try validator.validateTransfer(url: url, headers: headers, caFile: caFile)
        try validator.validateByteCount(expectedBytesUp, field: "expected_bytes_up")
        try validator.validatePath(source, field: "source")
        try validator.refusePrivate(source, field: "source")
        if formField != nil, uploadProtocol != .multipart {
            throw ValidationError(
                .invalidValue,
                field: "form_field",
                "form_field applies only to protocol \"multipart\""
            )
        }
        if let chunk = chunkBytes {
            guard uploadProtocol == .tus else {
                throw ValidationError(
                    .invalidValue,
                    field: "chunk_bytes",
                    "chunk_bytes applies only to protocol \"tus\""
                )
            }
            guard Self.chunkBytesRange.contains(chunk) else {
                throw ValidationError(
                    .invalidValue,
                    field: "chunk_bytes",
                    "chunk_bytes must be from \(Self.chunkBytesRange.lowerBound) (64 KiB) to \(Self.chunkBytesRange.upperBound) (1 TiB) bytes, not \(chunk)"
                )
            }
        }
        if uploadProtocol == .tus, let method, method != "POST" {
            throw ValidationError(
                .invalidValue,
                field: "method",
                "tus uploads create with POST and send with PATCH; leave method out"
            )
        }
        if let method, !["PUT", "POST"].contains(method) {
            throw ValidationError(
                .invalidValue,
                field: "method",
                "upload method must be PUT or POST, not \"\(method)\""
            )
        }
    }

    public func writeStored(_ section: StoredSpecSection, to json: inout JSONWriter) {
        switch section {
        case .target:
            json.member("url", url)
            json.member("source", source)
            json.member("method", method)
            json.member("headers", headers)
            json.member("contentType", contentType)
        case .details:
            json.member("uploadProtocol", uploadProtocol)
            json.member("formField", formField)
        case .bytesUp:
            json.member("expectedBytesUp", expectedBytesUp)
        case .trailing:
            json.member("chunkBytes", chunkBytes)
            json.member("caFile", caFile)
        }
    }
}

/// How an upload sends its file.
public enum UploadProtocol: String, Sendable, Codable, CaseIterable {
    /// The file is the request body (PUT or POST).
    case raw
    /// The file is one part of a `multipart/form-data` POST.
    case multipart
    /// Resumable upload with the tus 1.0 protocol (creation + core).
    case tus
}
