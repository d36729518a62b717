/// Performs one attempt of a job's network work. Implementations stream, honour task
/// cancellation promptly (pause, cancel and shutdown cancel the task), and report failures as
/// `JobFailure` so the dispatcher can tell retryable from permanent ones.
public protocol TransferEngine: Sendable {
    func run(_ job: Job, context: TransferContext) async throws -> JobResult
    /// Removes whatever an attempt kept for resuming, once the job will never run again
    /// (failed for good or cancelled).
    func discardResumeData(of job: Job) async
}

extension TransferEngine {
    public func discardResumeData(of job: Job) async {}
}

/// What the dispatcher gives an engine besides the job.
public struct TransferContext: Sendable {
    /// Called as bytes move; cheap, throttled by the receiver.
    public var progress: @Sendable (TransferProgress) -> Void
    /// Durably records how to resume; returns once stored.
    public var checkpoint: @Sendable (ResumeState) async -> Void
    /// Validators of the last successful fetch of the same URL into the same file.
    public var validators: FetchValidators?

    public init(
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        checkpoint: @escaping @Sendable (ResumeState) async -> Void = { _ in },
        validators: FetchValidators? = nil
    ) {
        self.progress = progress
        self.checkpoint = checkpoint
        self.validators = validators
    }
}
