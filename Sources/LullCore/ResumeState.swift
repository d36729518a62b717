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
    /// The file that fetch left at the destination (`JobResult.file`): a 304 keeps what is there,
    /// so the question may be asked only while the same file, unchanged, is still there.
    public var file: String?
    /// Its SHA-256, for a fetch that names the content it wants.
    public var sha256: String?

    public init(etag: String?, lastModified: String?, file: String? = nil, sha256: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.file = file
        self.sha256 = sha256
    }

    /// Whether a conditional GET may keep the file now at the destination (`file`, its identity;
    /// nil when there is none) for a fetch that expects content `sha256`: only a file this same
    /// fetch left, untouched since (another job may have replaced it, or its owner edited it), and
    /// of that content.
    public func mayKeep(file current: String?, expecting sha256: String?) -> Bool {
        guard let file, file == current else { return false }
        guard let sha256 else { return true }
        return self.sha256 == sha256.lowercased()
    }
}
