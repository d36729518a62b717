import Foundation
import LullAPI
import LullCore
import LullTransfer
import NIOCore
import NIOHTTP1
import Synchronization

/// The control API v1: maps each route to the store and dispatcher, enforcing ownership.
/// `routes` is the API as data; the handlers live in `Routes/`, one resource per file, and
/// this file keeps what they share: error mapping, ownership lookup, query checking.
/// A uid sees and acts on its own jobs only; root sees all. Other owners' jobs answer 404, so
/// their existence does not leak.
struct ControlRouter: Sendable {
    let store: any JobStore
    let dispatcher: Dispatcher
    let hub: EventHub
    let validators: ValidatorHolder
    var validator: JobSpecValidator { validators.current }
    let info: DaemonInfo
    let clock: any LullClock
    let samples: SampleWatch
    let metrics: DaemonMetrics
    /// Checks a submission's files with the submitter's rights.
    let files: FileAccess
    /// `POST /v1/reload` (Routes/ReloadRoute).
    let reloader: ConfigReloader
    /// The event streams' heartbeat timer: the event loops', not `Task.sleep` (see `Sleeper`).
    let sleeper: any Sleeper
    /// How long an event stream may go without a byte: past it, a comment line. A follower can
    /// then tell a quiet daemon from a stopped one (SIGSTOP, a hung machine) by its silence.
    var eventStreamHeartbeat: Duration = .seconds(15)
    let streams = EventStreamLimit()

    func handle(_ request: ControlRequest) async -> ControlResponse {
        do {
            return try await route(request)
        } catch let error as APIError {
            return .error(error)
        } catch let error as ValidationError {
            return .error(
                APIError(
                    Self.status(of: error.code),
                    code: error.code.rawValue,
                    error.message,
                    field: error.field
                )
            )
        } catch let error as StoreFullError {
            let directory = URL(fileURLWithPath: error.path).deletingLastPathComponent().path
            return .error(
                APIError(
                    .insufficientStorage,
                    code: "no_space",
                    "no space left to store this: \(error); free space there (df \(directory)) and try again"
                )
            )
        } catch {
            return .error(
                APIError(
                    .serviceUnavailable,
                    code: "store_unavailable",
                    "the job store failed: \(error); see the daemon's log (journalctl -u lulld)"
                )
            )
        }
    }

    /// Every route of the API, for dispatch and for the `Allow` header of a 405. Methods of one
    /// path are listed in the order `Allow` names them.
    static let routes = RouteTable([
        ControlRoute(.GET, "/v1/status") { router, request, _ in try await router.status(request) },
        ControlRoute(.POST, "/v1/jobs") { router, request, _ in try await router.submit(request) },
        ControlRoute(.POST, "/v1/jobs:batch") { router, request, _ in try await router.submitBatch(request) },
        ControlRoute(.GET, "/v1/jobs") { router, request, _ in try await router.list(request) },
        ControlRoute(.GET, "/v1/jobs/{id}") { router, request, path in try await router.show(path["id"], request) },
        ControlRoute(.DELETE, "/v1/jobs/{id}") { router, request, path in
            try await router.command(.cancel, path["id"], request)
        },
        ControlRoute(.POST, "/v1/jobs/{id}/pause") { router, request, path in
            try await router.command(.pause, path["id"], request)
        },
        ControlRoute(.POST, "/v1/jobs/{id}/resume") { router, request, path in
            try await router.command(.resume, path["id"], request)
        },
        ControlRoute(.GET, "/v1/events") { router, request, _ in try await router.events(request) },
        ControlRoute(.GET, "/v1/jobs/{id}/explain") { router, request, path in
            try await router.explain(path["id"], request)
        },
        ControlRoute(.GET, "/v1/jobs/{id}/output") { router, request, path in
            try await router.output(path["id"], request)
        },
        ControlRoute(.POST, "/v1/simulate") { router, request, _ in try await router.simulate(request) },
        ControlRoute(.GET, "/v1/samples") { router, request, _ in try await router.samplesHistory(request) },
        ControlRoute(.GET, "/metrics") { router, request, _ in try await router.metricsText(request) },
        ControlRoute(.POST, "/v1/reload") { router, request, _ in try await router.reload(request) },
    ])

    private func route(_ request: ControlRequest) async throws -> ControlResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch Self.routes.match(request.method, segments) {
        case .found(let route, let parameters):
            return try await route.handler(self, request, parameters)
        case .methodNotAllowed(let allowed):
            let methods = allowed.map(\.rawValue)
            throw APIError(
                .methodNotAllowed,
                code: "method_not_allowed",
                "\(request.method.rawValue) is not allowed on /\(segments.joined(separator: "/")); use \(methods.joined(separator: " or "))",
                headers: [("allow", methods.joined(separator: ", "))]
            )
        case .notFound:
            throw APIError(
                .notFound,
                code: "no_such_route",
                "no route /\(segments.joined(separator: "/")); the API is described in docs/api.md"
            )
        }
    }

    // MARK: Shared by the routes

    /// 413 for what is over a limit, 422 for what this daemon cannot enforce, 403 for what this
    /// submitter may not ask for, else 400.
    static func status(of code: ValidationError.Code) -> HTTPResponseStatus {
        switch code {
        case .tooLarge: .payloadTooLarge
        case .notEnforceable: .unprocessableEntity
        case .forbidden: .forbidden
        default: .badRequest
        }
    }

    /// A job as stored: its view, or the plain columns of one whose row no longer decodes.
    func view(_ stored: StoredJob) async -> JobView {
        switch stored {
        case .readable(let job): await view(job)
        case .unreadable(let unreadable): JobView(unreadable)
        }
    }

    /// A job with, when it waits, the reasons it waits.
    func view(_ job: Job) async -> JobView {
        var job = job
        if job.state == .running, let reported = await dispatcher.reportedProgress(of: job.id) {
            job.progress = reported
        }
        var view = JobView(job, waitingFor: await reasons(for: job))
        if job.state == .running || job.state == .paused, let usage = await dispatcher.usage(of: job) {
            view.usage = UsageView(usage)
        }
        return view
    }

    func reasons(for job: Job) async -> [WaitingReason]? {
        switch job.state {
        case .queued:
            return await dispatcher.waitingReasons(for: job.id)
        case .paused:
            return [WaitingReason(code: .paused, seen: "paused by a person", setting: "lullctl resume \(job.id)")]
        default:
            return nil
        }
    }

    func ownedJob(_ rawID: String, _ request: ControlRequest) async throws -> Job {
        switch try await ownedRow(rawID, request) {
        case .readable(let job): return job
        case .unreadable(let unreadable): throw Self.refusal(unreadable)
        }
    }

    /// What a route other than show and cancel answers for a job whose row no longer decodes.
    static func refusal(_ unreadable: UnreadableJob) -> APIError {
        APIError(
            .conflict,
            code: "unreadable_job",
            "\(unreadable); only a cancel applies to it: \(unreadable.remedy)",
            field: "id"
        )
    }

    /// The job `rawID` names, if the peer may see it, readable or not.
    func ownedRow(_ rawID: String, _ request: ControlRequest) async throws -> StoredJob {
        // Digits only: Int64("+7") is 7, and one job must not have two paths.
        let digits = rawID.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard digits, let value = Int64(rawID), value > 0 else {
            // All digits but past Int64: no such job could exist, and "not a positive integer" would be wrong.
            if !rawID.isEmpty, rawID.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                rawID.contains(where: { $0 != "0" })
            {
                throw APIError(
                    .notFound,
                    code: "not_found",
                    "no job \(rawID): job ids go up to \(Int64.max)",
                    field: "id"
                )
            }
            throw APIError(
                .badRequest,
                code: "invalid_value",
                "job id \"\(UntrustedText.escaped(rawID))\" is not a positive integer",
                field: "id"
            )
        }
        let stored: StoredJob?
        do {
            stored = try await store.job(JobID(value)).map(StoredJob.readable)
        } catch let unreadable as UnreadableJob {
            stored = .unreadable(unreadable)
        }
        guard let stored, request.peer.isAdmin || stored.owner == request.peer.owner else {
            throw APIError(.notFound, code: "not_found", "no job \(value) (lullctl list shows your jobs)", field: "id")
        }
        return stored
    }

    func checkQuery(_ request: ControlRequest, allowed: Set<String>) throws {
        for name in request.query.keys.sorted() where !allowed.contains(name) {
            let known =
                allowed.isEmpty
                ? "this route takes no query parameters" : "known: \(allowed.sorted().joined(separator: ", "))"
            throw ValidationError(
                .unknownField,
                field: name,
                "unknown query parameter \"\(UntrustedText.escaped(name))\"; \(known)"
            )
        }
    }

    func integer(_ raw: String?, field: String, range: ClosedRange<Int64>) throws -> Int64? {
        guard let raw else { return nil }
        guard let value = Int64(raw), range.contains(value) else {
            throw ValidationError(
                .invalidValue,
                field: field,
                "\(field) must be an integer from \(range.lowerBound) to \(range.upperBound), not \"\(UntrustedText.escaped(raw))\""
            )
        }
        return value
    }
}

/// The submission rules in force; a reload swaps them.
final class ValidatorHolder: Sendable {
    private let value: Mutex<JobSpecValidator>

    init(_ validator: JobSpecValidator) { value = Mutex(validator) }

    var current: JobSpecValidator { value.withLock { $0 } }
    /// Read for every request: the one number, without copying the validator.
    var maxRequestBytes: Int { value.withLock { $0.limits.maxRequestBytes } }
    func replace(_ validator: JobSpecValidator) { value.withLock { $0 = validator } }
}

/// Facts about this daemon instance that `status` reports.
struct DaemonInfo: Sendable {
    var version: String
    var pid: Int32
    var startedAt: Date
    var socketPath: String
    var stateDirectory: String
}
