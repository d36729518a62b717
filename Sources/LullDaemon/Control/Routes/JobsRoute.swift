import Foundation
import LullAPI
import LullCore
import LullTransfer
import NIOFoundationCompat

/// The job collection: `POST /v1/jobs` (submit), `POST /v1/jobs:batch`, `GET /v1/jobs` (list).
extension ControlRouter {
    func submit(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: [])
        let submission = try WireDecoding.decode(JobSubmission.self, from: Data(buffer: request.body))
        let spec = try submission.validatedSpec(validator, owner: request.peer.owner)
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

    func submitBatch(_ request: ControlRequest) async throws -> ControlResponse {
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
        let owner = request.peer.owner
        // Every job is checked as it would be alone, its paths all in one visit to the thread
        // pool, and the batch is refused for its first problem in the order of the jobs.
        let specs = batch.jobs.map { submission in
            Result { () throws(ValidationError) -> JobSpec in
                try submission.validatedSpec(validator, owner: owner)
            }
        }
        let valid = specs.compactMap { try? $0.get() }
        var pathProblems = await files.pathProblems(of: valid, owner: owner)[...]
        var newJobs: [NewJob] = []
        for (index, checked) in specs.enumerated() {
            let problem: ValidationError?
            switch checked {
            case .failure(let error): problem = error
            case .success: problem = pathProblems.popFirst() ?? nil
            }
            if let error = problem {
                throw ValidationError(
                    error.code,
                    field: "jobs[\(index)]" + (error.field.map { "." + $0 } ?? ""),
                    "jobs[\(index)]: \(error.message)"
                )
            }
            if case .success(let spec) = checked { newJobs.append(NewJob(owner: owner, spec: spec, createdAt: now)) }
        }
        let jobs = try await storeWithinQuota(newJobs, request)
        let reasons = await dispatcher.enqueue(jobs)
        return .encode(.created, BatchView(jobs: zip(jobs, reasons).map { JobView($0, waitingFor: $1) }))
    }

    func list(_ request: ControlRequest) async throws -> ControlResponse {
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
        let page = try await store.list(filter)
        let jobs = page.items
        let next = jobs.count == filter.limit || page.cutShort ? jobs.last?.id.rawValue : nil
        var views: [JobView] = []
        for job in jobs { views.append(await view(job)) }
        return .encode(.ok, JobListView(jobs: views, nextAfter: next))
    }

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

    /// The `owner` query parameter of `GET /v1/jobs`: a uid whose jobs are listed. Root may name
    /// any uid (and without it sees every owner); anyone else only their own uid, since other
    /// owners' jobs are hidden from them everywhere else too (a 403 says so rather than an
    /// empty list, which would read as "that user has no jobs").
    static func listedOwner(_ raw: String?, peer: PeerCredentials) throws -> OwnerID? {
        guard let raw else { return peer.isAdmin ? nil : peer.owner }
        guard !raw.isEmpty, raw.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let uid = UInt32(raw)
        else {
            throw ValidationError(
                .invalidValue,
                field: "owner",
                "owner \"\(UntrustedText.escaped(raw))\" is not a uid; give a number (lullctl list --owner also takes a user name)"
            )
        }
        guard peer.isAdmin || uid == peer.uid else {
            throw APIError(
                .forbidden,
                code: "forbidden",
                "only root may list another user's jobs (owner \(uid)); leave owner out, or give your own uid \(peer.uid)",
                field: "owner"
            )
        }
        return OwnerID(uid)
    }
}
