import Foundation
import LullAPI
import LullCore
import LullStore
import LullTransfer
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// What lulld's features ask of each submission, done with lulld's own code, for the ceiling
/// server's `checked` mode: the request's size limit, the body decoded as a `JobSubmission`,
/// the spec made and validated, the `spec` column written by the store's `storedJSON`, the paths
/// checked on NIO's thread pool, and the owner's quota reserved, in lulld's order and with its
/// answers. Two things differ, neither of them work lulld does per submission: the owner is
/// this process's uid (lulld reads `SO_PEERCRED` once per connection, and the bench's clients
/// run as the server's uid), and so the path check needs no identity switch, as in lulld when
/// the owner is its own uid.
struct CeilingChecks: Sendable {
    /// What the answer and the writer need of a submission that passed the checks.
    struct Checked: Sendable {
        let spec: JobSpec
        let url: String
        let destination: String
        let stored: String
    }

    /// A refused submission: lulld's status and error body.
    struct Refusal: Error {
        let status: HTTPResponseStatus
        let body: APIErrorBody
    }

    /// lulld's validator under its default configuration.
    private let validator = JobSpecValidator(limits: SubmissionLimits())
    let owner = OwnerID(getuid())
    private let queued = NIOLockedValueBox(0)

    /// Everything up to the path check, on the event loop, as lulld's route does it.
    func check(_ body: ByteBuffer) -> Result<Checked, Refusal> {
        guard body.readableBytes <= validator.limits.maxRequestBytes else { return .failure(Self.tooLarge) }
        do throws(ValidationError) {
            let submission = try WireDecoding.decode(JobSubmission.self, from: Data(buffer: body))
            let spec = try submission.validatedSpec(validator)
            guard let stored = try? spec.storedJSON() else {
                throw ValidationError(.invalidValue, field: nil, "the spec cannot be stored")
            }
            return .success(
                Checked(spec: spec, url: submission.url, destination: submission.destination ?? "", stored: stored)
            )
        } catch {
            return .failure(Self.refusal(error))
        }
    }

    /// lulld's size limit and validation of a spec made from the fields the bare server scanned
    /// by hand, for the `lean-checked` mode.
    func validate(_ spec: JobSpec, bodyBytes: Int) -> Refusal? {
        guard bodyBytes <= validator.limits.maxRequestBytes else { return Self.tooLarge }
        do throws(ValidationError) {
            try validator.validate(spec, owner: owner)
            return nil
        } catch {
            return Self.refusal(error)
        }
    }

    /// The path check on the thread pool, then the quota; the future holds the refusal, if any.
    func finish(_ checked: Checked, on loop: any EventLoop) -> EventLoopFuture<Refusal?> {
        let owner = self.owner
        return NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
            FileAccess.pathProblem(of: checked.spec, owner: owner)
        }.map { problem in
            if let problem { return Self.refusal(problem) }
            return reserve()
        }.recover { _ in
            // lulld too lets a submission through when the pool cannot check its paths.
            reserve()
        }
    }

    private func reserve() -> Refusal? {
        let limit = validator.limits.maxQueuedPerOwner
        let taken = queued.withLockedValue { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        return taken
            ? nil
            : Refusal(
                status: .tooManyRequests,
                body: APIErrorBody(code: "quota_exceeded", message: "the owner has \(limit) jobs queued")
            )
    }

    private static let tooLarge = Refusal(
        status: .payloadTooLarge,
        body: APIErrorBody(code: "too_large", message: "request body is larger than limits.max_request_bytes")
    )

    /// lulld's error body; its status is 400 here (lulld's router answers two rarer codes with
    /// 413 and 422, which the benchmark's submissions never meet).
    static func refusal(_ error: ValidationError) -> Refusal {
        Refusal(
            status: .badRequest,
            body: APIErrorBody(code: error.code.rawValue, message: error.message, field: error.field)
        )
    }
}
