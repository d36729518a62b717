import Foundation
import LullCore
import LullTransfer
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// `GET /v1/jobs/{id}/output`: a run job's log, as text.
extension ControlRouter {
    /// The log from byte `offset` on (all of it without one), with its whole size in
    /// `Lull-Log-Size`, so a follower asks for what it has not seen. The log keeps its newest
    /// bytes only (`[run] max_log_bytes`): a size below a follower's offset means it was cut.
    /// Owner-checked like every job route; a job that has not run yet has an empty log.
    func output(_ rawID: String, _ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: ["offset"])
        let job = try await ownedJob(rawID, request)
        guard job.spec.kind == .run else {
            throw APIError(
                .conflict,
                code: "no_output",
                "job \(job.id) is a \(job.spec.kind.rawValue) job; only run jobs keep output",
                field: "id"
            )
        }
        let offset = try integer(request.query["offset"], field: "offset", range: 0...Int64.max) ?? 0
        let path = RunLogs(stateDirectory: info.stateDirectory).path(of: job.id)
        // Opened on the thread pool, not the event loop; sent a chunk at a time as the client
        // reads (`FileBody`), so a log of `[run] max_log_bytes` is never held whole.
        let opened = try await NIOThreadPool.singleton.runIfActive { Self.openLog(path) }
        let contentType = "text/plain; charset=utf-8"
        guard let (descriptor, size) = opened else {
            return .complete(.ok, contentType: contentType, Data(), headers: [("lull-log-size", "0")])
        }
        let body = FileBody(descriptor: descriptor, offset: min(offset, size), length: max(0, size - offset))
        return .file(.ok, contentType: contentType, body, headers: [("lull-log-size", String(size))])
    }

    /// The log's descriptor and size; nil when the job has no log (it printed nothing yet).
    private static func openLog(_ path: String) -> (CInt, Int64)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return nil
        }
        return (descriptor, Int64(status.st_size))
    }
}
