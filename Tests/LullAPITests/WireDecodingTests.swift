import Foundation
import LullAPI
import LullClient
import LullCore
import Testing

@Suite struct WireDecodingTests {
    func failure<T: Decodable>(_ json: String, as type: T.Type = JobSubmission.self) -> ValidationError? {
        do {
            _ = try WireDecoding.decode(type, from: Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesAFullSubmission() throws {
        let submission = try WireDecoding.decode(JobSubmission.self, from: Data("""
            {"kind":"push","url":"http://h/p","body_base64":"aGk=","content_type":"text/plain",
             "headers":{"X-A_b":"1"},"label":"l","class":"utility","method":"put"}
            """.utf8))
        let spec = try submission.spec()
        #expect(spec.body == Array("hi".utf8))
        #expect(spec.method == "PUT")
        #expect(spec.headers == ["X-A_b": "1"])
        #expect(spec.jobClass == "utility")
    }

    @Test func namesUnknownFields() {
        let error = failure(#"{"kind":"fetch","url":"http://h/a","destinaton":"/tmp/a"}"#)
        #expect(error?.code == .unknownField)
        #expect(error?.field == "destinaton")
    }

    @Test func namesUnknownFieldsInsideNestedObjects() {
        let error = failure(#"{"kind":"push","url":"http://h/p","retry":{"max_atempts":3}}"#)
        #expect(error?.code == .unknownField)
        #expect(error?.field == "retry.max_atempts")
    }

    @Test func namesMissingFields() {
        let error = failure(#"{"kind":"fetch","destination":"/tmp/a"}"#)
        #expect(error?.code == .missingField)
        #expect(error?.field == "url")
    }

    @Test func malformedJSONHasNoField() {
        #expect(failure(#"{"kind": "fetch", "#)?.code == .malformedJSON)
        #expect(failure(#"[1,2]"#)?.code == .malformedJSON)
        #expect(failure("")?.code == .malformedJSON)
    }

    @Test func wrongTypesAndKindsAreInvalidValues() {
        #expect(failure(#"{"kind":"fetch","url":42}"#)?.field == "url")
        let kind = failure(#"{"kind":"teleport","url":"http://h"}"#)
        #expect(kind?.field == "kind")
        #expect(kind?.message.contains("fetch, push, upload") == true)
    }

    @Test func batchErrorsPointIntoTheArray() {
        let error = failure(#"{"jobs":[{"kind":"fetch","url":"http://h","destination":"/a"},{"kind":"fetch"}]}"#, as: BatchSubmission.self)
        #expect(error?.field == "jobs[1].url")
    }

    @Test func bodyAndBase64AreExclusive() throws {
        let submission = JobSubmission(kind: .push, url: "http://h", body: "a", bodyBase64: "YQ==")
        #expect(throws: ValidationError.self) { try submission.spec() }
    }
}

@Suite struct ServerSentEventParserTests {
    @Test func reassemblesMessagesSplitAcrossChunks() {
        var parser = ServerSentEventParser()
        let stream = Array(": comment\n\nid: 1\nevent: submitted\ndata: {\"a\":1}\n\nid: 2\ndata: x\ndata: y\r\n\n".utf8)
        var messages: [ServerSentEventParser.Message] = []
        for chunk in stride(from: 0, to: stream.count, by: 7) {
            messages += parser.feed(stream[chunk..<min(chunk + 7, stream.count)])
        }
        #expect(messages.count == 2)
        #expect(messages[0] == .init(id: "1", event: "submitted", data: #"{"a":1}"#))
        #expect(messages[1].data == "x\ny")
    }
}
