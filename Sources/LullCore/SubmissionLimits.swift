/// Caps on what one submission may carry. Every limit is stated in the error that enforces it.
public struct SubmissionLimits: Sendable, Equatable {
    /// Largest request body the control API reads, in bytes.
    public var maxRequestBytes: Int
    /// Largest inline push payload, in bytes (after base64 decoding).
    public var maxPushBodyBytes: Int
    /// Longest URL accepted, in bytes.
    public var maxURLBytes: Int
    /// Longest label, in bytes.
    public var maxLabelBytes: Int
    /// Most jobs in one batch request.
    public var maxBatchJobs: Int
    /// Most unfinished (queued, paused, running) jobs one non-root owner may have.
    public var maxQueuedPerOwner: Int
    /// Seconds a control connection may stay silent while a request is due (between requests,
    /// or in the middle of one) before it is closed.
    public var requestReadTimeout: Double

    public init(
        maxRequestBytes: Int = 1 << 20,
        maxPushBodyBytes: Int = 1 << 20,
        maxURLBytes: Int = 8192,
        maxLabelBytes: Int = 256,
        maxBatchJobs: Int = 1000,
        maxQueuedPerOwner: Int = 100_000,
        requestReadTimeout: Double = 30
    ) {
        self.requestReadTimeout = requestReadTimeout
        self.maxRequestBytes = maxRequestBytes
        self.maxPushBodyBytes = maxPushBodyBytes
        self.maxURLBytes = maxURLBytes
        self.maxLabelBytes = maxLabelBytes
        self.maxBatchJobs = maxBatchJobs
        self.maxQueuedPerOwner = maxQueuedPerOwner
    }
}
