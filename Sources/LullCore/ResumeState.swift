/// What an interrupted transfer needs to continue where it stopped rather than start over.
/// Engines record it through their context as soon as they learn it; it survives restarts.
public struct ResumeState: Sendable, Equatable, Codable {
    /// fetch: the validator the partial file was downloaded under (`ETag` or `Last-Modified`).
    public var validator: String?
    /// fetch: bytes of the staging file known to be on disk; upload: bytes the server confirmed.
    public var offset: Int64
    /// tus: the upload's URL on the server.
    public var uploadURL: String?
    /// upload: the source file's size and modification time when the upload began.
    public var sourceSize: Int64?
    public var sourceModified: Double?
    /// Bytes received over the network across all attempts so far.
    public var transferredBytes: Int64 = 0

    public init(
        validator: String? = nil,
        offset: Int64 = 0,
        uploadURL: String? = nil,
        sourceSize: Int64? = nil,
        sourceModified: Double? = nil
    ) {
        self.validator = validator
        self.offset = offset
        self.uploadURL = uploadURL
        self.sourceSize = sourceSize
        self.sourceModified = sourceModified
    }
}

/// What a previous successful fetch of the same URL into the same file left behind,
/// for a conditional GET (`If-None-Match`, `If-Modified-Since`).
public struct FetchValidators: Sendable, Equatable, Codable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }
}
