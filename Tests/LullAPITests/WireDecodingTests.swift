import Foundation
import LullClient
import LullCore
import Testing

@testable import LullAPI

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
        let submission = try WireDecoding.decode(
            JobSubmission.self,
            from: Data(
                """
                {"kind":"push","url":"http://h/p","body_base64":"aGk=","content_type":"text/plain",
                 "headers":{"X-A_b":"1"},"label":"l","class":"utility","method":"put"}
                """.utf8
            )
        )
        let spec = try submission.spec()
        #expect(spec.payload.push?.body == Array("hi".utf8))
        #expect(spec.payload.push?.method == "PUT")
        #expect(spec.payload.push?.headers == ["X-A_b": "1"])
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
        let error = failure(
            #"{"jobs":[{"kind":"fetch","url":"http://h","destination":"/a"},{"kind":"fetch"}]}"#,
            as: BatchSubmission.self
        )
        #expect(error?.field == "jobs[1].url")
    }

    @Test func unknownFieldsAreFoundAtEveryLevel() {
        let cases: [(String, String)] = [
            (#"{"jobs":[{"kind":"fetch","url":"http://h","destination":"/a"}],"priority":1}"#, "priority"),
            (
                #"{"jobs":[{"kind":"fetch","url":"http://h","destination":"/a"},{"kind":"fetch","url":"http://h","prio":1}]}"#,
                "jobs[1].prio"
            ),
            (
                #"{"jobs":[{"kind":"fetch","url":"http://h","periodic":{"every_seconds":60,"evry":1}}]}"#,
                "jobs[0].periodic.evry"
            ),
            (#"{"jobs":[{"kind":"fetch","url":"http://h","timeouts":{"idle":1}}]}"#, "jobs[0].timeouts.idle"),
        ]
        for (json, field) in cases {
            let error = failure(json, as: BatchSubmission.self)
            #expect(error?.code == .unknownField, "\(json)")
            #expect(error?.field == field, "\(json)")
        }
    }

    @Test func valuesOfTheWrongKindNameTheirField() {
        let cases: [(String, String)] = [
            (#"{"kind":"fetch","url":"http://h","not_before":"tomorrow"}"#, "not_before"),
            (#"{"kind":"fetch","url":"http://h","deadline":17}"#, "deadline"),
            (#"{"kind":"fetch","url":"http://h","requires_ac":"yes"}"#, "requires_ac"),
            (#"{"kind":"fetch","url":"http://h","expected_bytes":1.5}"#, "expected_bytes"),
            (#"{"kind":"fetch","url":"http://h","min_battery":"half"}"#, "min_battery"),
            (#"{"kind":"fetch","url":"http://h","max_bytes":99999999999999999999}"#, "max_bytes"),
            (#"{"kind":"fetch","url":"http://h","retry":{"max_attempts":"3"}}"#, "retry.max_attempts"),
            (#"{"kind":"fetch","url":"http://h","retry":{"max_attempts":2.5}}"#, "retry.max_attempts"),
            (#"{"kind":"fetch","url":"http://h","periodic":{"flex_seconds":5}}"#, "periodic.every_seconds"),
        ]
        for (json, field) in cases {
            let error = failure(json)
            #expect(error != nil && error?.code != .unknownField, "\(json)")
            #expect(error?.field == field, "\(json): \(String(describing: error))")
        }
        #expect(
            failure(#"{"kind":"fetch","url":"http://h","not_before":"tomorrow"}"#)?.message
                == #"field "not_before" must be an ISO-8601 time such as 2026-01-31T22:00:00Z"#
        )
        #expect(
            failure(#"{"kind":"fetch","url":"http://h","expected_bytes":1.5}"#)?.message
                == #"field "expected_bytes" must be an integer"#
        )
    }

    @Test func anUnknownChoiceNamesTheChoices() {
        let cases: [(String, String, String)] = [
            (
                #"{"kind":"fetch","url":"http://h","network":"wifi"}"#, "network",
                JobConstraints.Network.allCases.map(\.rawValue).joined(separator: ", ")
            ),
            (#"{"kind":"upload","url":"http://h","protocol":"ftp"}"#, "protocol", "raw, multipart, tus"),
            (
                #"{"kind":"fetch","url":"http://h","on_deadline":"panic"}"#, "on_deadline",
                DeadlineAction.allCases.map(\.rawValue).joined(separator: ", ")
            ),
        ]
        for (json, field, choices) in cases {
            let error = failure(json)
            #expect(error?.code == .invalidValue && error?.field == field, "\(json)")
            #expect(
                error?.message == "field \"\(field)\" must be one of \(choices)",
                "\(String(describing: error?.message))"
            )
        }
        let inBatch = failure(#"{"jobs":[{"kind":"teleport","url":"http://h"}]}"#, as: BatchSubmission.self)
        #expect(inBatch?.field == "jobs[0].kind" && inBatch?.message.contains("fetch, push, upload") == true)
    }

    @Test func everyFieldOfAFullSubmissionIsRead() throws {
        let submission = try WireDecoding.decode(
            JobSubmission.self,
            from: Data(
                """
                {"kind":"upload","url":"http://h/u","source":"/tmp/s","protocol":"tus","form_field":"f",
                 "sha256":"ab","expected_bytes":10,"max_bytes":20,"idempotency_key":"k","requires_ac":true,
                 "min_battery":40.5,"network":"unmetered","not_before":"2030-01-01T00:00:00Z",
                 "deadline":"2030-01-02T00:00:00Z","on_deadline":"expire","expected_bytes_up":30,
                 "retry":{"max_attempts":3,"base_seconds":1.5,"cap_seconds":60},
                 "timeouts":{"connect_seconds":5,"idle_seconds":6,"total_seconds":7},
                 "periodic":{"every_seconds":3600,"flex_seconds":600},"on_complete_unit":"x.service"}
                """.utf8
            )
        )
        #expect(submission.source == "/tmp/s" && submission.uploadProtocol == .tus)
        #expect(submission.formField == "f")
        #expect(submission.expectedBytes == 10 && submission.maxBytes == 20 && submission.expectedBytesUp == 30)
        #expect(submission.idempotencyKey == "k")
        #expect(submission.requiresAC == true && submission.minBattery == 40.5)
        #expect(submission.notBefore == Date(timeIntervalSince1970: 1_893_456_000))
        #expect(submission.deadline == Date(timeIntervalSince1970: 1_893_542_400))
        #expect(submission.retry == RetrySettings(maxAttempts: 3, baseSeconds: 1.5, capSeconds: 60))
        #expect(submission.timeouts == TimeoutSettings(connectSeconds: 5, idleSeconds: 6, totalSeconds: 7))
        #expect(submission.periodic?.every == 3600 && submission.periodic?.flex == 600)
        #expect(submission.onCompleteUnit == "x.service")
    }

    /// JSONDecoder keeps the first of two equal keys, most parsers the last: a proxy and lulld
    /// would read different jobs from one body, so a doubled key is refused, naming it.
    @Test func aKeyGivenTwiceIsRefusedByItsPath() {
        let job = #""kind":"fetch","url":"http://h/a""#
        let cases: [(String, String, BatchOrNot)] = [
            (#"{\#(job),"destination":"/tmp/a","destination":"/etc/passwd"}"#, "destination", .single),
            (#"{\#(job),"destination":"/tmp/a","destin\u0061tion":"/etc/passwd"}"#, "destination", .single),
            (
                #"{\#(job),"destination":"/tmp/a","retry":{"max_attempts":2,"base_seconds":1,"max_attempts":9}}"#,
                "retry.max_attempts", .single
            ),
            (#"{\#(job),"destination":"/tmp/a","headers":{"X-A":"1","X-B":"2","X-A":"3"}}"#, "headers.X-A", .single),
            (#"{\#(job),"destination":"/tmp/a","headers":{"\ud83d\ude00\u00e9":"1","😀é":"2"}}"#, "headers.😀é", .single),
            (
                #"{"jobs":[{\#(job),"destination":"/a"},{\#(job),"url":"http://h/b","destination":"/b"}]}"#,
                "jobs[1].url", .batch
            ),
            (#"{"jobs":[{\#(job),"destination":"/a"}],"jobs":[]}"#, "jobs", .batch),
        ]
        for (json, field, shape) in cases {
            let error = shape == .batch ? failure(json, as: BatchSubmission.self) : failure(json)
            #expect(error?.code == .duplicateField, "\(json)")
            #expect(error?.field == field, "\(json): \(String(describing: error))")
            #expect(error?.message == "duplicate key \"\(field)\" in the request body; give each key once")
        }
    }

    enum BatchOrNot { case single, batch }

    /// JSONDecoder would read UTF-16 and UTF-32 too, where the duplicate-key scanner, reading
    /// UTF-8, missed a duplicate `url`: refused, as is a UTF-8 byte-order mark.
    @Test func aBodyThatIsNotPlainUTF8IsRefusedBeforeADuplicateCanHide() throws {
        let json = #"{"kind":"fetch","destination":"/tmp/a","url":"http://good/","\u0075rl":"http://evil/"}"#
        #expect(failure(json)?.code == .duplicateField)
        let encodings: [(String, Data)] = [
            ("UTF-16LE", json.data(using: .utf16LittleEndian)!),
            ("UTF-16BE", json.data(using: .utf16BigEndian)!),
            ("UTF-16 with BOM", json.data(using: .utf16)!),
            ("UTF-32BE", json.data(using: .utf32BigEndian)!),
            ("UTF-8 with BOM", Data([0xEF, 0xBB, 0xBF]) + Data(json.utf8)),
        ]
        for (name, body) in encodings {
            do {
                _ = try WireDecoding.decode(JobSubmission.self, from: body)
                Issue.record("\(name) was decoded")
            } catch {
                #expect(error.code == .malformedJSON, "\(name): \(error)")
                #expect(error.message.contains("not UTF-8 JSON"), "\(name): \(error.message)")
            }
        }
    }

    @Test func equalKeysInDifferentObjectsOrInsideStringsAreNotDuplicates() throws {
        let batch = try WireDecoding.decode(
            BatchSubmission.self,
            from: Data(
                #"""
                {"jobs":[{"kind":"fetch","url":"http://h/a","destination":"/a","headers":{"kind":"x","url":"y"},
                          "label":"\"kind\":1,\"kind\":2 {\"url\" [\\"},
                         {"kind":"fetch","url":"http://h/b","destination":"/b","retry":{"max_attempts":2},"timeouts":{"idle_seconds":2}}]}
                """#.utf8
            )
        )
        #expect(batch.jobs.count == 2)
        #expect(batch.jobs[0].label == #""kind":1,"kind":2 {"url" [\"#)
    }

    /// Past a few keys an object's keys are looked up by hash: a doubled key is still found, and
    /// a large object of distinct keys passes.
    @Test func aDuplicateAmongManyKeysIsFound() throws {
        let names = (0..<300).map { "X-H\($0)" }
        func body(_ names: [String]) -> String {
            #"{"kind":"fetch","url":"http://h/a","destination":"/a","headers":{"#
                + names.map { #""\#($0)":"v""# }.joined(separator: ",") + "}}"
        }
        #expect(try WireDecoding.decode(JobSubmission.self, from: Data(body(names).utf8)).headers?.count == 300)
        let error = failure(body(names + ["X-H7"]))
        #expect(error?.code == .duplicateField && error?.field == "headers.X-H7", "\(String(describing: error))")
    }

    /// A body nested past JSONDecoder's limit is called that, not "not valid JSON"; one at the
    /// limit is read (and refused for what it holds), so the limit named is the decoder's own.
    @Test func aBodyNestedTooDeeplySaysSo() {
        func nested(_ depth: Int) -> String {
            #"{"kind":"fetch","url":"http://h/a","label":"# + String(repeating: "[", count: depth - 1)
                + String(repeating: "]", count: depth - 1) + "}"
        }
        let deep = failure(nested(WireDecoding.nestingLimit + 1))
        #expect(deep?.code == .malformedJSON)
        #expect(
            deep?.message
                == "request body is nested too deeply (limit \(WireDecoding.nestingLimit) levels); see docs/api.md for the shape of a job"
        )
        let atLimit = failure(nested(WireDecoding.nestingLimit))
        #expect(atLimit?.code == .invalidValue && atLimit?.field == "label", "\(String(describing: atLimit))")
        #expect(failure(#"{"kind": "fetch", "#)?.message == "request body is not valid JSON")
    }

    @Test func bodyAndBase64AreExclusive() throws {
        let submission = JobSubmission(kind: .push, url: "http://h", body: "a", bodyBase64: "YQ==")
        #expect(throws: ValidationError.self) { try submission.spec() }
    }
}

@Suite struct ServerSentEventParserTests {
    @Test func reassemblesMessagesSplitAcrossChunks() {
        var parser = ServerSentEventParser()
        let stream = Array(
            ": comment\n\nid: 1\nevent: submitted\ndata: {\"a\":1}\n\nid: 2\ndata: x\ndata: y\r\n\n".utf8
        )
        var messages: [ServerSentEventParser.Message] = []
        for chunk in stride(from: 0, to: stream.count, by: 7) {
            messages += parser.feed(stream[chunk..<min(chunk + 7, stream.count)])
        }
        #expect(messages.count == 2)
        #expect(messages[0] == .init(id: "1", event: "submitted", data: #"{"a":1}"#))
        #expect(messages[1].data == "x\ny")
    }
}

@Suite struct SimulateRequestTests {
    /// A simulated cellular link is metered, as the sensors report one, unless the request says
    /// it is not: otherwise max_metered_job_bytes and byte budgets never showed in simulate.
    @Test func cellularIsMeteredUnlessSaidOtherwise() {
        let world = WorldSnapshot()
        #expect(SimulateRequest(cellular: true).applied(to: world).network.metered)
        #expect(!SimulateRequest(metered: false, cellular: true).applied(to: world).network.metered)
        #expect(!SimulateRequest(offline: false).applied(to: world).network.metered)
    }
}
