import Foundation
import LullAPI
import LullCore
import LullSensors
import LullTransfer
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// The control API v1: maps each route to the store and dispatcher, enforcing ownership.
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
    /// `POST /v1/reload` (ControlRouter+Reload).
    let reloader: ConfigReloader
    let streams = EventStreamLimit()

    func handle(_ request: ControlRequest) async -> ControlResponse {
        do {
            return try await route(request)
        } catch let error as APIError {
            return .error(error)
        } catch let error as ValidationError {
            return .error(
                APIError(
                    error.code == .tooLarge ? .payloadTooLarge : .badRequest,
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

    private func route(_ request: ControlRequest) async throws -> ControlResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if request.method == .GET, segments == ["metrics"] { return try await metricsText(request) }
        guard segments.first == "v1" else { throw Self.unknownRoute(request.method, segments) }
        let route = Array(segments.dropFirst())
        switch (request.method, route.count) {
        case (.GET, 1) where route[0] == "status":
            return try await status(request)
        case (.GET, 1) where route[0] == "samples":
            return try await samplesHistory(request)
        case (.POST, 1) where route[0] == "jobs":
            return try await submit(request)
        case (.POST, 1) where route[0] == "jobs:batch":
            return try await submitBatch(request)
        case (.GET, 1) where route[0] == "jobs":
            return try await list(request)
        case (.GET, 1) where route[0] == "events":
            return try await events(request)
        case (.GET, 2) where route[0] == "jobs":
            try checkQuery(request, allowed: [])
            return .encode(.ok, await view(try await ownedJob(route[1], request)))
        case (.GET, 3) where route[0] == "jobs" && route[2] == "explain":
            return try await explain(route[1], request)
        case (.POST, 1) where route[0] == "simulate":
            return try await simulate(request)
        case (.DELETE, 2) where route[0] == "jobs":
            return try await command(.cancel, route[1], request)
        case (.POST, 3) where route[0] == "jobs" && route[2] == "pause":
            return try await command(.pause, route[1], request)
        case (.POST, 3) where route[0] == "jobs" && route[2] == "resume":
            return try await command(.resume, route[1], request)
        case (.POST, 1) where route[0] == "reload":
            return try await reload(request)
        default:
            throw Self.unknownRoute(request.method, segments)
        }
    }

    // MARK: Routes

    private func status(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let counts = try await store.countsByState(owner: request.peer.isAdmin ? nil : request.peer.owner)
        var jobs: [String: Int] = [:]
        for state in JobState.allCases { jobs[state.rawValue] = counts[state] ?? 0 }
        let usage = ProcessUsage.current()
        let view = StatusView(
            version: info.version,
            pid: info.pid,
            startedAt: info.startedAt,
            uptimeSeconds: clock.now().timeIntervalSince(info.startedAt),
            socket: info.socketPath,
            stateDir: info.stateDirectory,
            jobs: jobs,
            running: request.peer.isAdmin ? await dispatcher.runningCount : jobs[JobState.running.rawValue] ?? 0,
            limits: LimitsView(
                maxConcurrent: await dispatcher.currentPolicy.maxConcurrent.value,
                maxRequestBytes: validator.limits.maxRequestBytes,
                maxPushBodyBytes: validator.limits.maxPushBodyBytes,
                maxBatchJobs: validator.limits.maxBatchJobs,
                maxQueuedPerOwner: validator.limits.maxQueuedPerOwner
            ),
            process: ProcessView(rssBytes: usage.rssBytes, cpuSeconds: usage.cpuSeconds),
            world: WorldView(await dispatcher.currentWorld),
            sample: SampleView(await samples.latest()),
            lastEventSeq: hub.latest,
            stateDirMode: StateDirectory.mode(of: info.stateDirectory)
        )
        return .encode(.ok, view)
    }

    /// The sampler's history; asking counts as watching, so sampling runs at its busy interval
    /// for a while after each request.
    private func samplesHistory(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let history = await samples.samples()
        return .encode(
            .ok,
            SamplesView(intervalSeconds: await samples.interval.timeInterval, samples: history.map(SampleView.init))
        )
    }

    /// Prometheus text format; aggregate numbers only, so any client of the socket may read them.
    private func metricsText(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        // Every state of every class the policy or the store knows gets a value, zero or not: a
        // series left out keeps its last value in the registry (a class a reload removed would
        // go on reporting its queued job after the job was cancelled).
        let counts = try await store.countsByClassAndState()
        var classes = Set(await dispatcher.currentPolicy.classes.map(\.name))
        classes.formUnion(counts.keys.map(\.jobClass))
        var jobs: [JobCountKey: Int] = [:]
        for name in classes {
            for state in JobState.allCases { jobs[JobCountKey(jobClass: name, state: state)] = 0 }
        }
        for (key, count) in counts { jobs[key] = count }
        let sampler = await samples.activity()
        let snapshot = MetricsSnapshot(
            jobs: jobs,
            running: await dispatcher.runningCount,
            world: await dispatcher.currentWorld,
            scheduling: await dispatcher.schedulingStatistics,
            samplerRunning: sampler.running,
            samplerTicks: sampler.ticks,
            process: .current()
        )
        return .complete(.ok, contentType: "text/plain; version=0.0.4; charset=utf-8", Data(metrics.render(snapshot)))
    }

    private func submit(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let submission = try WireDecoding.decode(JobSubmission.self, from: Data(buffer: request.body))
        let spec = Self.prepared(try submission.spec())
        try validator.validate(spec)
        try await files.checkPaths(of: spec, owner: request.peer.owner)
        let jobs = try await storeWithinQuota(
            [NewJob(owner: request.peer.owner, spec: spec, createdAt: clock.now())],
            request
        )
        let reasons = await dispatcher.enqueue(jobs)
        return .encode(
            .created,
            JobView(jobs[0], waitingFor: reasons[0]),
            headers: [("location", "/v1/jobs/\(jobs[0].id)")]
        )
    }

    private func submitBatch(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let batch = try WireDecoding.decode(BatchSubmission.self, from: Data(buffer: request.body))
        guard !batch.jobs.isEmpty else {
            throw ValidationError(.invalidValue, field: "jobs", "jobs is empty; give at least one job")
        }
        guard batch.jobs.count <= validator.limits.maxBatchJobs else {
            throw ValidationError(
                .tooLarge,
                field: "jobs",
                "batch has \(batch.jobs.count) jobs; the limit is \(validator.limits.maxBatchJobs) (limits.max_batch_jobs)"
            )
        }
        let now = clock.now()
        var newJobs: [NewJob] = []
        for (index, submission) in batch.jobs.enumerated() {
            do {
                let spec = Self.prepared(try submission.spec())
                try validator.validate(spec)
                try await files.checkPaths(of: spec, owner: request.peer.owner)
                newJobs.append(NewJob(owner: request.peer.owner, spec: spec, createdAt: now))
            } catch {
                throw ValidationError(
                    error.code,
                    field: "jobs[\(index)]" + (error.field.map { "." + $0 } ?? ""),
                    "jobs[\(index)]: \(error.message)"
                )
            }
        }
        let jobs = try await storeWithinQuota(newJobs, request)
        let reasons = await dispatcher.enqueue(jobs)
        return .encode(.created, BatchView(jobs: zip(jobs, reasons).map { JobView($0, waitingFor: $1) }))
    }

    private func list(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: ["state", "label", "class", "owner", "limit", "after"])
        var state: JobState?
        if let raw = request.query["state"] {
            guard let parsed = JobState(rawValue: raw) else {
                throw ValidationError(
                    .invalidValue,
                    field: "state",
                    "state \"\(raw)\" is not one of \(JobState.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            state = parsed
        }
        let limit = try integer(request.query["limit"], field: "limit", range: 1...Int64(JobFilter.maxLimit)) ?? 100
        let after = try integer(request.query["after"], field: "after", range: 0...Int64.max).map { JobID($0) }
        let filter = JobFilter(
            owner: try Self.listedOwner(request.query["owner"], peer: request.peer),
            state: state,
            label: request.query["label"],
            jobClass: request.query["class"],
            after: after,
            limit: Int(limit)
        )
        let jobs = try await store.list(filter)
        let next = jobs.count == filter.limit ? jobs.last?.id.rawValue : nil
        var views: [JobView] = []
        for job in jobs { views.append(await view(job)) }
        return .encode(.ok, JobListView(jobs: views, nextAfter: next))
    }

    private func command(
        _ command: JobCommand,
        _ rawID: String,
        _ request: ControlRequest
    ) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let job = try await ownedJob(rawID, request)
        switch try await dispatcher.apply(command, to: job) {
        case .success(let updated):
            return .encode(.ok, await view(updated))
        case .failure(let refusal):
            throw APIError(.conflict, code: "invalid_state", "job \(job.id): \(refusal)", field: "state")
        }
    }

    private func events(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: ["after", "limit"])
        let after = try integer(request.query["after"], field: "after", range: 0...Int64.max) ?? 0
        let owner = request.peer.isAdmin ? nil : request.peer.owner
        let pageSize = Int(try integer(request.query["limit"], field: "limit", range: 1...1000) ?? 1000)
        let store = self.store
        if !request.wantsEventStream {
            let events = try await store.events(after: after, owner: owner, limit: pageSize)
            return .encode(.ok, EventPageView(events: events.map(EventView.init), lastSeq: events.last?.seq ?? after))
        }
        let slot = try owner.map { owner in
            guard let granted = streams.reserve(for: owner) else {
                throw APIError(
                    .tooManyRequests,
                    code: "too_many_streams",
                    "uid \(owner.rawValue) already has \(streams.perOwner) event streams open, the limit; close one, or read pages with GET /v1/events?after=SEQ (no text/event-stream)"
                )
            }
            return granted
        }
        let hub = self.hub
        // The slot is held by the closure: given back when the stream ends, or if it never starts.
        return .stream(contentType: "text/event-stream") { [slot] writer in
            withExtendedLifetime(slot) {}
            let encoder = WireJSON.encoder()
            var cursor = after
            // The hub's sequence number for this follower as of our last look; anything it may
            // see that is committed later is above it.
            var known = hub.latest(for: owner)
            try await writer.write(": lull event stream after seq \(after)\n\n")
            while !Task.isCancelled {
                let events = try await store.events(after: cursor, owner: owner, limit: pageSize)
                for event in events {
                    let json = String(decoding: try encoder.encode(EventView(event)), as: UTF8.self)
                    try await writer.write("id: \(event.seq)\nevent: \(event.type.rawValue)\ndata: \(json)\n\n")
                    cursor = event.seq
                }
                if events.count < pageSize {
                    known = await hub.wait(after: known, for: owner)
                }
            }
        }
    }

    private func explain(_ rawID: String, _ request: ControlRequest) async throws -> ControlResponse {
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
            world: WorldView(await dispatcher.currentWorld)
        )
        return .encode(.ok, view)
    }

    private func simulate(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: ["limit"])
        let body = request.body.readableBytes == 0 ? Data("{}".utf8) : Data(buffer: request.body)
        let hypothesis = try WireDecoding.decode(SimulateRequest.self, from: body)
        if let battery = hypothesis.battery, !(0...100).contains(battery) {
            throw ValidationError(.invalidValue, field: "battery", "battery must be a percentage from 0 to 100")
        }
        let limit = Int(try integer(request.query["limit"], field: "limit", range: 1...1000) ?? 100)
        let world = hypothesis.applied(to: await dispatcher.currentWorld)
        // Everyone's jobs compete in the simulation; a uid is shown only its own.
        let owner = request.peer.isAdmin ? nil : request.peer.owner
        let simulation = await dispatcher.simulate(world, explainLimit: limit, owner: owner)
        let wouldStart = simulation.decision.start.filter { owner == nil || $0.owner == owner }.map(\.id.rawValue)
        let waiting = simulation.waiting.map {
            SimulationView.Waiting(jobId: $0.id.rawValue, reasons: $0.reasons.map(WaitingReasonView.init))
        }
        return .encode(
            .ok,
            SimulationView(
                world: WorldView(world),
                wouldStart: wouldStart,
                waiting: waiting,
                waitingCount: simulation.waitingCount
            )
        )
    }

    // MARK: Helpers

    /// A job with, when it waits, the reasons it waits.
    /// Stores new jobs if their owner's quota has room for them all (a batch is all or nothing).
    private func storeWithinQuota(_ jobs: [NewJob], _ request: ControlRequest) async throws -> [Job] {
        let owner = request.peer.owner
        if case .failure(let exceeded) = await dispatcher.reserve(
            jobs.count,
            for: owner,
            limit: validator.limits.maxQueuedPerOwner
        ) {
            throw APIError(.tooManyRequests, code: "quota_exceeded", exceeded.message)
        }
        do {
            return try await store.insert(jobs)
        } catch {
            await dispatcher.release(jobs.count, for: owner)
            throw error
        }
    }

    private func view(_ job: Job) async -> JobView {
        var job = job
        if job.state == .running, let reported = await dispatcher.reportedProgress(of: job.id) {
            job.progress = reported
        }
        return JobView(job, waitingFor: await reasons(for: job))
    }

    private func reasons(for job: Job) async -> [WaitingReason]? {
        switch job.state {
        case .queued:
            return await dispatcher.waitingReasons(for: job.id)
        case .paused:
            return [WaitingReason(code: .paused, seen: "paused by a person", setting: "lullctl resume \(job.id)")]
        default:
            return nil
        }
    }

    /// Fills in what the daemon decides once per job at submission: a push's idempotency key
    /// (the client's own `Idempotency-Key` header wins), so every retry carries the same one.
    /// A fetch's file mode likewise: stored, so what the job shows is what its file gets (a job
    /// stored before `mode` existed keeps the daemon's umask, as it had when it was accepted).
    static func prepared(_ spec: JobSpec) -> JobSpec {
        if spec.kind == .fetch, spec.fileMode == nil {
            var spec = spec
            spec.fileMode = .fetchDefault
            return spec
        }
        guard spec.kind == .push, spec.idempotencyKey == nil else { return spec }
        var spec = spec
        let header = spec.headers?.first { $0.key.lowercased() == "idempotency-key" }
        spec.idempotencyKey = header?.value ?? UUID().uuidString.lowercased()
        return spec
    }

    private func ownedJob(_ rawID: String, _ request: ControlRequest) async throws -> Job {
        guard let value = Int64(rawID), value > 0 else {
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
        guard let job = try await store.job(JobID(value)), request.peer.isAdmin || job.owner == request.peer.owner
        else {
            throw APIError(.notFound, code: "not_found", "no job \(value) (lullctl list shows your jobs)", field: "id")
        }
        return job
    }

    private func checkQuery(_ request: ControlRequest, allowed: Set<String>) throws {
        for name in request.query.keys.sorted() where !allowed.contains(name) {
            let known =
                allowed.isEmpty
                ? "this route takes no query parameters" : "known: \(allowed.sorted().joined(separator: ", "))"
            throw ValidationError(.unknownField, field: name, "unknown query parameter \"\(name)\"; \(known)")
        }
    }

    private func integer(_ raw: String?, field: String, range: ClosedRange<Int64>) throws -> Int64? {
        guard let raw else { return nil }
        guard let value = Int64(raw), range.contains(value) else {
            throw ValidationError(
                .invalidValue,
                field: field,
                "\(field) must be an integer from \(range.lowerBound) to \(range.upperBound), not \"\(raw)\""
            )
        }
        return value
    }

    private static let routes: [(HTTPMethod, [String])] = [
        (.GET, ["v1", "status"]), (.POST, ["v1", "jobs"]), (.POST, ["v1", "jobs:batch"]), (.GET, ["v1", "jobs"]),
        (.GET, ["v1", "jobs", "*"]), (.DELETE, ["v1", "jobs", "*"]), (.POST, ["v1", "jobs", "*", "pause"]),
        (.POST, ["v1", "jobs", "*", "resume"]), (.GET, ["v1", "events"]), (.GET, ["v1", "jobs", "*", "explain"]),
        (.POST, ["v1", "simulate"]), (.GET, ["v1", "samples"]), (.GET, ["metrics"]),
        (.POST, ["v1", "reload"]),
    ]

    /// 405 with `Allow` when the path exists under another method, else 404.
    private static func unknownRoute(_ method: HTTPMethod, _ segments: [String]) -> APIError {
        let allowed = routes.filter { route in
            route.1.count == segments.count && zip(route.1, segments).allSatisfy { $0 == "*" || $0 == $1 }
        }.map(\.0.rawValue)
        if !allowed.isEmpty {
            return APIError(
                .methodNotAllowed,
                code: "method_not_allowed",
                "\(method.rawValue) is not allowed on /\(segments.joined(separator: "/")); use \(allowed.joined(separator: " or "))",
                headers: [("allow", allowed.joined(separator: ", "))]
            )
        }
        return APIError(
            .notFound,
            code: "no_such_route",
            "no route /\(segments.joined(separator: "/")); the API is described in docs/api.md"
        )
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
