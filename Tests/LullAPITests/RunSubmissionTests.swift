import Foundation
import LullAPI
import LullCore
import Testing

/// A run job on the wire: no `url`, its own fields, and the transfers' fields refused by name.
@Suite struct RunSubmissionTests {
    static func decode(_ json: String) throws -> JobSubmission {
        try WireJSON.decoder().decode(JobSubmission.self, from: Data(json.utf8))
    }

    @Test func aRunJobNeedsNoURL() throws {
        let submission = try Self.decode(
            #"{"kind":"run","argv":["sh","-c","exit 3"],"working_directory":"/tmp","environment":{"X":"1"},"retry_exit_codes":[3],"stop_grace_seconds":1,"output_tail_bytes":10}"#
        )
        let spec = try submission.spec()
        #expect(
            spec.payload
                == .run(
                    RunJob(
                        argv: ["sh", "-c", "exit 3"],
                        workingDirectory: "/tmp",
                        environment: ["X": "1"],
                        retryExitCodes: [3],
                        stopGraceSeconds: 1,
                        outputTailBytes: 10
                    )
                )
        )
        // Encoded again without a url, and read back the same.
        let encoded = try WireJSON.encoder().encode(submission)
        #expect(!String(decoding: encoded, as: UTF8.self).contains("\"url\""))
        #expect(try WireJSON.decoder().decode(JobSubmission.self, from: encoded) == submission)
    }

    @Test func transfersStillNeedTheirURL() {
        #expect(throws: (any Error).self) { try Self.decode(#"{"kind":"fetch","destination":"/tmp/a"}"#) }
    }

    @Test func fieldsOfOtherKindsAreRefusedByName() throws {
        func field(_ json: String) throws -> String? {
            do {
                _ = try Self.decode(json).spec()
                return nil
            } catch let error as ValidationError {
                return error.field
            }
        }
        #expect(try field(#"{"kind":"run"}"#) == "argv")
        #expect(try field(#"{"kind":"run","argv":["true"],"url":"http://h/a"}"#) == "url")
        #expect(try field(#"{"kind":"run","argv":["true"],"destination":"/tmp/a"}"#) == "destination")
        #expect(try field(#"{"kind":"run","argv":["true"],"headers":{"A":"b"}}"#) == "headers")
        #expect(try field(#"{"kind":"fetch","url":"http://h/a","destination":"/tmp/a","argv":["x"]}"#) == "argv")
        #expect(try field(#"{"kind":"push","url":"http://h/a","environment":{"A":"b"}}"#) == "environment")
    }
}
