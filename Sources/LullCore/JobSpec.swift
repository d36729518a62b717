/// What a client asked for, after validation. Stored verbatim (as JSON) so a later version of
/// the daemon can read specs written by an earlier one; new fields are therefore optional.
public struct JobSpec: Sendable, Equatable, Codable {
    public var kind: JobKind
    public var url: String
    /// fetch: absolute path the downloaded file is renamed to once verified.
    public var destination: String?
    /// upload: absolute path of the file to send.
    public var source: String?
    /// push: HTTP method (POST, PUT or PATCH).
    public var method: String?
    /// push and upload: extra request headers.
    public var headers: [String: String]?
    /// push: content type of the body.
    public var contentType: String?
    /// push: the payload, already decoded from text or base64.
    public var body: [UInt8]?
    public var label: String?
    public var jobClass: String

    public init(
        kind: JobKind,
        url: String,
        destination: String? = nil,
        source: String? = nil,
        method: String? = nil,
        headers: [String: String]? = nil,
        contentType: String? = nil,
        body: [UInt8]? = nil,
        label: String? = nil,
        jobClass: String = JobClassName.default
    ) {
        self.kind = kind
        self.url = url
        self.destination = destination
        self.source = source
        self.method = method
        self.headers = headers
        self.contentType = contentType
        self.body = body
        self.label = label
        self.jobClass = jobClass
    }
}

/// The class names every policy starts with.
public enum JobClassName {
    public static let `default` = "default"
    public static let builtIn = ["interactive", "default", "utility", "background", "maintenance"]
}
