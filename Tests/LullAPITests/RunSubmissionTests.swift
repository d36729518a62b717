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

    /// The resource controls are flat on the wire, beside argv; the job keeps them together.
    @Test func resourceControlsRoundTrip() throws {
        let submission = try Self.decode(
            #"{"kind":"run","argv":["true"],"nice":3,"cpu_weight":200,"memory_max":1073741824,"io_weight":50,"tasks_max":64}"#
        )
        let resources = RunResources(cpuWeight: 200, memoryMax: 1 << 30, ioWeight: 50, tasksMax: 64)
        #expect(try submission.spec().payload == .run(RunJob(argv: ["true"], nice: 3, resources: resources)))
        let encoded = String(decoding: try WireJSON.encoder().encode(submission), as: UTF8.self)
        #expect(encoded.contains(#""memory_max":1073741824"#) && encoded.contains(#""tasks_max":64"#))
        #expect(try Self.decode(encoded) == submission)

        let view = JobView(
            Job(id: JobID(1), owner: OwnerID(0), spec: try submission.spec(), createdAt: Date()),
            waitingFor: nil
        )
        #expect(view.cpuWeight == 200 && view.memoryMax == 1 << 30 && view.ioWeight == 50 && view.tasksMax == 64)
        #expect(view.nice == 3)
        // None given: none stored, none shown.
        let plain = try Self.decode(#"{"kind":"run","argv":["true"]}"#).spec()
        #expect(plain.payload.run?.resources == nil)
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
        #expect(
            try field(#"{"kind":"fetch","url":"http://h/a","destination":"/tmp/a","memory_max":1}"#) == "memory_max"
        )
    }
}
