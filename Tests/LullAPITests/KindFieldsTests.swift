import LullAPI
import LullCore
import Testing

/// A kind takes the fields it names from the flat wire body: one it cannot do without is a
/// missing field, and one that belongs to another kind is refused by name.
@Suite struct KindFieldsTests {
    func refusal(_ submission: JobSubmission) -> ValidationError? {
        do {
            _ = try submission.spec()
            return nil
        } catch {
            return error
        }
    }

    @Test func requiresWhatEachKindNeeds() {
        #expect(refusal(JobSubmission(kind: .fetch, url: "http://h/a"))?.code == .missingField)
        #expect(refusal(JobSubmission(kind: .upload, url: "http://h/a"))?.field == "source")
        #expect(refusal(JobSubmission(kind: .push, url: "http://h/a", destination: "/tmp/a"))?.field == "destination")
    }

    @Test func refusesAnotherKindsFields() {
        let fetch = refusal(JobSubmission(kind: .fetch, url: "http://h/a", destination: "/tmp/a", body: "x"))
        #expect(fetch?.field == "body")
        #expect(fetch?.message == "\"body\" does not apply to fetch jobs")
        #expect(refusal(JobSubmission(kind: .upload, url: "http://h/a", source: "/a", sha256: "ab"))?.field == "sha256")
        #expect(refusal(JobSubmission(kind: .push, url: "http://h/a", chunkBytes: 1 << 20))?.field == "chunk_bytes")
        #expect(refusal(JobSubmission(kind: .push, url: "http://h/a", body: "x")) == nil)
    }

    /// `unit` is a run job's: a transfer that names it is refused, not stripped of it.
    @Test func refusesAUnitOutsideRunJobs() {
        var fetch = JobSubmission(kind: .fetch, url: "http://h/a", destination: "/tmp/a")
        fetch.unit = "backup.service"
        #expect(refusal(fetch)?.field == "unit")
        var push = JobSubmission(kind: .push, url: "http://h/a")
        push.unit = "backup.service"
        #expect(refusal(push)?.message == "\"unit\" does not apply to push jobs")
    }

    /// Fields a kind accepts and drops for release 0.1's clients still may not hold a control
    /// character, as api.md says of every text field.
    @Test func refusesControlCharactersInFieldsAKindDrops() {
        var fetch = JobSubmission(kind: .fetch, url: "http://h/a", destination: "/tmp/a")
        fetch.contentType = "a\u{1B}[31mX"
        #expect(refusal(fetch)?.field == "content_type")
        fetch.contentType = "text/plain"
        #expect(refusal(fetch) == nil)
        var upload = JobSubmission(kind: .upload, url: "http://h/a", source: "/a")
        upload.idempotencyKey = "\u{1B}]0;pwn\u{07}"
        #expect(refusal(upload)?.field == "idempotency_key")
    }

    /// A push's own `Idempotency-Key` header becomes its key; it is checked as the header value
    /// it was sent as (a tab allowed), not as the plain-text field it is stored in.
    @Test func anIdempotencyKeyHeaderIsCheckedAsAHeader() throws {
        let validator = JobSpecValidator(limits: SubmissionLimits())
        var push = JobSubmission(kind: .push, url: "http://h/p")
        push.headers = ["Idempotency-Key": "a\tb"]
        let spec = try push.validatedSpec(validator)
        guard case .push(let job) = spec.payload else {
            Issue.record("not a push: \(spec.payload)")
            return
        }
        #expect(job.idempotencyKey == "a\tb")
        push.headers = ["Idempotency-Key": "a\u{1B}b"]
        #expect(throws: ValidationError.self) { try push.validatedSpec(validator) }
    }
}
