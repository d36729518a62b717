import Foundation
import LullAPI
import LullCore
import LullStore

@testable import LullDaemon

/// Submits `GoldenJobs` the way `POST /v1/jobs` does (wire decoding, `prepared`, validation)
/// and takes them through the state changes the dispatcher records, at fixed times:
///
/// 1 fetch-plain queued · 2 fetch-resumable queued with resume state after an interrupted
/// attempt · 3 fetch-periodic succeeded, creating 9 (its next occurrence, queued) · 4 push-text
/// running · 5 push-base64 failed · 6 upload-raw succeeded · 7 upload-multipart paused ·
/// 8 upload-tus queued in a retry backoff, with a failure and resume state.
enum GoldenHistory {
    static let validator = JobSpecValidator(limits: SubmissionLimits())

    /// The validated spec of each submission, as the submit route stores it.
    static func specs() throws -> [JobSpec] {
        try GoldenJobs.submissions.map { _, json in
            let submission = try WireDecoding.decode(JobSubmission.self, from: Data(json.utf8))
            let spec = try submission.spec().prepared()
            try validator.validate(spec)
            return spec
        }
    }

    static let accounting: JobAccounting = {
        var accounting = JobAccounting()
        accounting.bytesDown.wifi = 1_048_576
        accounting.bytesDown.ethernet = 300
        accounting.bytesUp.wifi = 2048
        accounting.wallSeconds = 12.5
        accounting.attempts = 1
        accounting.daemonCPUSeconds = 0.25
        return accounting
    }()

    static func write(into store: any JobStore) async throws {
        let owner = GoldenJobs.owner
        let specs = try specs()
        let jobs = try await store.insert(specs.map { NewJob(owner: owner, spec: $0, createdAt: GoldenJobs.t0) })
        precondition(jobs.map(\.id.rawValue) == Array(1...8), "a fresh store numbers jobs from 1")
        func at(_ seconds: Double) -> Date { GoldenJobs.at(seconds) }
        func start(_ id: Int64, _ seconds: Double) async throws {
            try await apply(
                store,
                JobUpdate(
                    id: JobID(id),
                    from: [.queued],
                    to: .running,
                    event: .started,
                    time: at(seconds),
                    countsAsAttempt: true
                )
            )
        }

        // 2: an attempt interrupted by a stop, its partial file kept for resuming.
        try await start(2, 10)
        try await apply(
            store,
            JobUpdate(
                id: JobID(2),
                from: [.running],
                to: .running,
                event: .progress,
                time: at(11),
                progress: TransferProgress(bytesDone: 65_536, bytesTotal: 1_048_576, bytesPerSecond: 32_768.4)
            )
        )
        var resume = ResumeState(validator: #""etag-1""#, offset: 65_536)
        resume.transferredBytes = 70_000
        try await apply(
            store,
            JobUpdate(
                id: JobID(2),
                from: [.running],
                to: .queued,
                event: .requeued,
                time: at(12),
                message: "lulld stopped",
                resume: resume,
                interruptsAttempt: true
            )
        )

        // 3: a periodic fetch succeeds and its next occurrence is created with it.
        try await start(3, 20)
        var next = specs[2]
        next.periodInterval = 5400
        let (outcome, successor) = try await store.apply(
            JobUpdate(
                id: JobID(3),
                from: [.running],
                to: .succeeded,
                event: .succeeded,
                time: at(30),
                result: JobResult(
                    httpStatus: 200,
                    bytes: 1_048_576,
                    sha256: "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
                    path: "/srv/lull/archive.tar.gz",
                    notModified: false,
                    etag: #""v2""#,
                    lastModified: "Sat, 21 Nov 2026 18:00:00 GMT",
                    bytesTransferred: 1_048_576,
                    accounting: accounting
                )
            ),
            creating: NewJob(owner: owner, spec: next, createdAt: at(30))
        )
        guard case .applied = outcome, successor?.id == GoldenJobs.successorID else {
            throw GoldenHistoryError(description: "job 3 did not succeed with its successor: \(outcome)")
        }

        // 4: running, with progress.
        try await start(4, 40)
        try await apply(
            store,
            JobUpdate(
                id: JobID(4),
                from: [.running],
                to: .running,
                event: .progress,
                time: at(41),
                progress: TransferProgress(bytesDone: 12, bytesTotal: 24, bytesPerSecond: 6)
            )
        )

        // 5: a push the server refused for good.
        try await start(5, 50)
        try await apply(
            store,
            JobUpdate(
                id: JobID(5),
                from: [.running],
                to: .failed,
                event: .failed,
                time: at(51),
                result: JobResult(
                    httpStatus: 422,
                    responseHeaders: ["content-type": "application/json", "x-request-id": "r-1"],
                    responseBody: #"{"error":"bad"}"#,
                    accounting: accounting
                ),
                failure: JobFailure(
                    code: "http_status",
                    message: "server said 422 Unprocessable Entity",
                    retryable: false
                )
            )
        )

        // 6: an upload that succeeded.
        try await start(6, 60)
        try await apply(
            store,
            JobUpdate(
                id: JobID(6),
                from: [.running],
                to: .succeeded,
                event: .succeeded,
                time: at(62),
                result: JobResult(
                    httpStatus: 201,
                    bytes: 4096,
                    responseHeaders: ["location": "/put/report.pdf", "etag": #""r1""#],
                    responseBody: "created",
                    bytesTransferred: 4096,
                    accounting: accounting
                )
            )
        )

        // 7: paused before it started.
        try await apply(
            store,
            JobUpdate(
                id: JobID(7),
                from: [.queued],
                to: .paused,
                event: .paused,
                time: at(70),
                message: "paused by uid 1000"
            )
        )

        // 8: a tus upload waiting out a retry backoff, its upload URL kept.
        try await start(8, 80)
        try await apply(
            store,
            JobUpdate(
                id: JobID(8),
                from: [.running],
                to: .running,
                event: .progress,
                time: at(81),
                progress: TransferProgress(bytesDone: 2_097_152, bytesTotal: 10_485_760, bytesPerSecond: 1_000_000)
            )
        )
        try await apply(
            store,
            JobUpdate(
                id: JobID(8),
                from: [.running],
                to: .queued,
                event: .retrying,
                time: at(85),
                failure: JobFailure(
                    code: "http_status",
                    message: "server said 503 Service Unavailable",
                    retryable: true,
                    retryAfter: 30
                ),
                resume: ResumeState(
                    offset: 2_097_152,
                    uploadURL: "https://tus.example.test/files/abc",
                    sourceSize: 10_485_760,
                    sourceModified: 1_795_280_000.5
                ),
                retryAt: at(115)
            )
        )
    }

    private static func apply(_ store: any JobStore, _ update: JobUpdate) async throws {
        guard case .applied = try await store.apply(update) else {
            throw GoldenHistoryError(description: "update of job \(update.id) to \(update.state) did not apply")
        }
    }

    /// The reasons a queued job's view carries: what `Dispatcher.waitingReasons` words, fixed.
    static let waitingReasons = [
        WaitingReason(
            code: .onBattery,
            seen: "on battery",
            limit: "AC power",
            setting: "requires_ac",
            className: "background",
            origin: ConfigOrigin(file: "/etc/lull/lull.toml", line: 12, key: "classes.background.requires_ac")
        ),
        WaitingReason(
            code: .notBefore,
            seen: "not before 2026-11-21 20:00",
            setting: "not_before",
            fromJob: true,
            until: Date(timeIntervalSince1970: 1_795_291_200)
        ),
    ]
}

struct GoldenHistoryError: Error, CustomStringConvertible {
    var description: String
}
