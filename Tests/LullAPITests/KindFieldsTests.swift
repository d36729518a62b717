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
}
