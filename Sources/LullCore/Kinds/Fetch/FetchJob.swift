/// Download a URL into a file: the file appears at `destination` only once complete and verified.
/// Its `Codable` form is the stored spec's (property names); the wire form is `JobSubmission`'s.
public struct FetchJob: KindPayload {
    public static let kind = JobKind.fetch

    public var url: String
    /// Absolute path the downloaded file is renamed to once verified.
    public var destination: String
    public var headers: [String: String]?
    /// The SHA-256 (lowercase hex) the file must have.
    public var sha256: String?
    /// The size the file must have, also used for the free-space check before starting.
    public var expectedBytes: Int64?
    /// Refuse to download more than this many bytes.
    public var maxBytes: Int64?
    /// The permission bits of the file once in place. Filled in with `FileMode.fetchDefault` at
    /// submission; nil only for jobs stored before the field existed, whose files are left to
    /// the daemon's umask as they were then.
    public var fileMode: FileMode?
    /// A PEM file of certificate authorities trusted besides the system's, read with the owner's rights.
    public var caFile: String?
    /// Bytes the job expects to send, for budgets and coalescing.
    public var expectedBytesUp: Int64?

    public init(
        url: String,
        destination: String,
        headers: [String: String]? = nil,
        sha256: String? = nil,
        expectedBytes: Int64? = nil,
        maxBytes: Int64? = nil,
        fileMode: FileMode? = nil,
        caFile: String? = nil,
        expectedBytesUp: Int64? = nil
    ) {
        self.url = url
        self.destination = destination
        self.headers = headers
        self.sha256 = sha256
        self.expectedBytes = expectedBytes
        self.maxBytes = maxBytes
        self.fileMode = fileMode
        self.caFile = caFile
        self.expectedBytesUp = expectedBytesUp
    }

    public var payload: JobPayload { .fetch(self) }
    public var host: String? { TransferHost.of(url) }
    public var expectedBytesDown: Int64? { expectedBytes }
    public var texts: [(field: String, text: String?)] {
        [("url", url), ("destination", destination), ("ca_file", caFile)]
    }
    public var conditionalFetch: ConditionalFetchKey? {
        ConditionalFetchKey(url: url, destination: destination)
    }
    public var progressDirection: ByteDirection { .received }
    public var journalFields: [String: String] { ["url": url] }
    public var summary: String { "fetch \(url) → \(destination)" }

    public func prepared() -> FetchJob {
        var job = self
        if job.fileMode == nil { job.fileMode = .fetchDefault }
        return job
    }

    public func validate(with validator: JobSpecValidator) throws(ValidationError) {
        try validator.validateTransfer(url: url, headers: headers, caFile: caFile)
        try validator.validateSHA256(sha256)
        try validator.validateByteCount(expectedBytes, field: "expected_bytes")
        try validator.validateByteCount(maxBytes, field: "max_bytes")
        try validator.validateByteCount(expectedBytesUp, field: "expected_bytes_up")
        try validator.validatePath(destination, field: "destination")
        try validator.refusePrivate(destination, field: "destination")
    }

    public func writeStored(_ section: StoredSpecSection, to json: inout JSONWriter) {
        switch section {
        case .target:
            json.member("url", url)
            json.member("destination", destination)
            json.member("headers", headers)
        case .details:
            json.member("sha256", sha256)
            json.member("expectedBytes", expectedBytes)
            json.member("maxBytes", maxBytes)
        case .bytesUp:
            json.member("expectedBytesUp", expectedBytesUp)
        case .trailing:
            json.member("fileMode", fileMode?.rawValue)
            json.member("caFile", caFile)
        }
    }
}
