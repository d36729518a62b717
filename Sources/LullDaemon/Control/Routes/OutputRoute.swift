import Foundation
import LullCore
import LullTransfer
import NIOPosix

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
        // Up to `[run] max_log_bytes` from disk: on the thread pool, not the event loop.
        let (data, size) = try await NIOThreadPool.singleton.runIfActive { Self.readLog(path, from: offset) }
        return .complete(
            .ok,
            contentType: "text/plain; charset=utf-8",
            data,
            headers: [("lull-log-size", String(size))]
        )
    }

    private static func readLog(_ path: String, from offset: Int64) -> (Data, Int64) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return (Data(), 0) }
        defer { try? handle.close() }
        let size = Int64((try? handle.seekToEnd()) ?? 0)
        guard offset < size else { return (Data(), size) }
        try? handle.seek(toOffset: UInt64(offset))
        return ((try? handle.readToEnd()) ?? Data(), size)
    }
}
