import LullAPI
import LullCore

/// One job: `GET /v1/jobs/{id}`, `DELETE /v1/jobs/{id}` (cancel), `POST /v1/jobs/{id}/pause`,
/// `POST /v1/jobs/{id}/resume`, `GET /v1/jobs/{id}/explain`.
extension ControlRouter {
    /// `GET /v1/jobs/{id}`.
    func show(_ rawID: String, _ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        return .encode(.ok, await view(try await ownedRow(rawID, request)))
    }

    /// Cancel, pause or resume, where the job's state allows it; a 409 `invalid_state` says why not.
    func command(
        _ command: JobCommand,
        _ rawID: String,
        _ request: ControlRequest
    ) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let job: Job
        switch try await ownedRow(rawID, request) {
        case .readable(let readable): job = readable
        case .unreadable(let unreadable) where command == .cancel:
            return try await cancel(unreadable)
        case .unreadable(let unreadable): throw Self.refusal(unreadable)
        }
        switch try await dispatcher.apply(command, to: job) {
        case .success(let updated):
            return .encode(.ok, await view(updated))
        case .failure(let refusal):
            throw Self.invalidState(job.id, refusal)
        }
    }

    /// `GET /v1/jobs/{id}/explain`: why the job waits, in words and as reasons.
    func explain(_ rawID: String, _ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let job = try await ownedJob(rawID, request)
        let reasons = await reasons(for: job) ?? []
        let summary: String
        switch job.state {
        case .queued where reasons.isEmpty: summary = "job \(job.id) is about to start"
        case .queued: summary = "job \(job.id) waits: " + reasons.map(\.description).joined(separator: "; ")
        case .paused: summary = "job \(job.id) is paused; lullctl resume \(job.id) puts it back in the queue"
        case .running: summary = "job \(job.id) is running (attempt \(job.attempts))"
        case .cancelled: summary = "job \(job.id) was cancelled"
        default:
            summary = "job \(job.id) \(job.state.rawValue)" + (job.failure.map { ": \($0.code): \($0.message)" } ?? "")
        }
        let view = ExplainView(
            jobId: job.id.rawValue,
            state: job.state,
            summary: summary,
            reasons: reasons.map(WaitingReasonView.init),
            nextCheck: job.state == .queued ? await dispatcher.nextCheck : nil,
            world: WorldView(await dispatcher.currentWorld),
            stops: job.stops == 0 ? nil : job.stops,
            lastStopReason: job.lastStop
        )
        return .encode(.ok, view)
    }

    private func cancel(_ unreadable: UnreadableJob) async throws -> ControlResponse {
        switch try await dispatcher.cancel(unreadable) {
        case .success(let updated):
            return .encode(.ok, JobView(updated))
        case .failure(let refusal):
            throw Self.invalidState(unreadable.id, refusal)
        }
    }

    private static func invalidState(_ id: JobID, _ refusal: JobCommandRefusal) -> APIError {
        APIError(.conflict, code: "invalid_state", "job \(id): \(refusal)", field: "state")
    }
}
