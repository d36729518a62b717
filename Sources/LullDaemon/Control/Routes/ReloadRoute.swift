import LullCore

#if canImport(Glibc)
import Glibc
#endif

extension ControlRouter {
    /// `POST /v1/reload`: reads the config again and answers with the outcome, so that
    /// `systemctl reload` (whose `ExecReload=` runs `lullctl reload`) fails on a refused file.
    /// Root and the daemon's own user only: those who could send it SIGHUP anyway.
    func reload(_ request: ControlRequest) async throws -> ControlResponse {
        guard request.peer.isAdmin || request.peer.uid == getuid() else {
            throw APIError(
                .forbidden,
                code: "forbidden",
                "only root (or the daemon's own user) may reload lulld's config; ask an admin to run `systemctl reload lulld`"
            )
        }
        if let name = request.query.keys.sorted().first {
            throw ValidationError(
                .unknownField,
                field: name,
                "unknown query parameter \"\(name)\"; this route takes no query parameters"
            )
        }
        switch await reloader.reload() {
        case .reloaded(let view), .noFile(let view):
            return .encode(.ok, view)
        case .refused(let file, let error):
            throw APIError(
                .unprocessableEntity,
                code: "invalid_config",
                "reload refused; the old policy stays in force. Fix \(file) (lulld --check-config --config \(file) checks it) and reload again:\n\(error)"
            )
        }
    }
}
