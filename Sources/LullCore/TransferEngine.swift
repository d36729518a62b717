/// Performs one attempt of a job's network work. Implementations stream, honour task
/// cancellation promptly (pause, cancel and shutdown cancel the task), and report failures as
/// `JobFailure` so the dispatcher can tell retryable from permanent ones.
public protocol TransferEngine: Sendable {
    func run(_ job: Job, progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> JobResult
}
