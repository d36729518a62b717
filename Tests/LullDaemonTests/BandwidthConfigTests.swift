import Foundation
import LullAPI
import LullCore
import Testing

@testable import LullDaemon

/// The bandwidth keys of the config and the job field: what they set, and how a bad value is
/// refused, naming the key or field and the range.
@Suite struct BandwidthConfigTests {
    @Test func theDaemonsAndAClasssLimitsWithTheirWindows() throws {
        let config = try ConfigLoader.parse(
            """
            [limits]
            max_bytes_per_second = 10485760

            [[limits.bandwidth]]
            window = "08:00-18:00"
            max_bytes_per_second = 1048576

            [[limits.bandwidth]]
            window = "22:00-06:00"
            max_bytes_per_second = 104857600

            [classes.bulk]
            max_bytes_per_second = 2097152

            [[classes.bulk.bandwidth]]
            window = "09:00-17:00"
            max_bytes_per_second = 65536
            """,
            file: "t.toml"
        )
        let daemon = config.policy.bandwidth
        #expect(daemon.bytesPerSecond == 10 << 20 && daemon.origin?.line == 2)
        #expect(
            daemon.windows.map(\.window) == [
                DailyWindow(fromHour: 8, toHour: 18), DailyWindow(fromHour: 22, toHour: 6),
            ]
        )
        #expect(daemon.windows.map(\.bytesPerSecond) == [1 << 20, 100 << 20])
        let bulk = try #require(config.policy.classPolicy(named: "bulk"))
        #expect(bulk.bandwidth.bytesPerSecond == 2 << 20)
        #expect(
            bulk.bandwidth.windows == [
                .init(
                    window: DailyWindow(fromHour: 9, toHour: 17),
                    bytesPerSecond: 64 << 10,
                    origin: bulk.bandwidth.windows.first?.origin
                )
            ]
        )
        #expect(bulk.origin(of: .maxBytesPerSecond)?.key == "classes.bulk.max_bytes_per_second")
        // Nothing set: no limit anywhere.
        let plain = try ConfigLoader.parse("", file: "t.toml")
        #expect(plain.policy.bandwidth.isNone && plain.policy.classes.allSatisfy(\.bandwidth.isNone))
    }

    @Test func aLaterFilesWindowsReplaceAnEarlierOnes() throws {
        let first = try ConfigLoader.parse(
            "[[limits.bandwidth]]\nwindow = \"08:00-18:00\"\nmax_bytes_per_second = 1048576\n",
            file: "a.toml"
        )
        let second = try ConfigLoader.parse(
            "[[limits.bandwidth]]\nwindow = \"01:00-02:00\"\nmax_bytes_per_second = 2048\n",
            file: "b.toml",
            over: first
        )
        #expect(second.policy.bandwidth.windows.map(\.bytesPerSecond) == [2048])
    }

    /// Each entry of an array of tables is found on its own lines, and a header may carry a
    /// comment.
    @Test func errorsNameTheLineOfTheirOwnEntry() {
        let second = ConfigLoader.refusal(
            "[[limits.bandwidth]]\nwindow = \"08:00-18:00\"\nmax_bytes_per_second = 4096\n"
                + "[[limits.bandwidth]]\nwindow = \"20-21\"\nmax_bytes_per_second = 4096\n"
        )
        #expect(second?.hasPrefix("t.toml:5: limits.bandwidth.window: entry 2 of") == true, "\(second ?? "")")
        #expect(
            ConfigLoader.refusal("[limits]  # caps\nmax_bytes_per_second = 100\n")?.hasPrefix(
                "t.toml:2: limits.max_bytes_per_second:"
            ) == true
        )
    }

    @Test func badValuesAreRefusedNamingTheKeyAndTheRange() {
        let range = "from 1024 (1 KiB/s) to 1099511627776 (1 TiB/s)"
        #expect(
            ConfigLoader.refusal("[limits]\nmax_bytes_per_second = 100\n")
                == "t.toml:2: limits.max_bytes_per_second: expected an integer number of bytes per second \(range), not 100"
        )
        #expect(
            ConfigLoader.refusal("[limits]\nmax_bytes_per_second = \"2M\"\n")
                == "t.toml:2: limits.max_bytes_per_second: expected an integer number of bytes per second \(range)"
        )
        #expect(
            ConfigLoader.refusal("[classes.bulk]\nmax_bytes_per_second = 0\n")
                == "t.toml:2: classes.bulk.max_bytes_per_second: expected an integer number of bytes per second \(range), not 0"
        )
        let window = ConfigLoader.refusal("[[limits.bandwidth]]\nwindow = \"8-18\"\nmax_bytes_per_second = 4096\n")
        #expect(
            window
                == "t.toml:2: limits.bandwidth.window: entry 1 of [[limits.bandwidth]]: expected window = \"HH:MM-HH:MM\" in local time (00:00 to 23:59), e.g. \"08:00-18:00\""
        )
        let missing = ConfigLoader.refusal(
            "[[classes.bulk.bandwidth]]\nwindow = \"08:00-18:00\"\n[[classes.bulk.bandwidth]]\nwindow = \"20:00-21:00\"\nmax_bytes_per_second = 1\n"
        )
        #expect(
            missing?.contains(
                "classes.bulk.bandwidth.max_bytes_per_second: entry 1 of [[classes.bulk.bandwidth]] has no max_bytes_per_second"
            ) == true,
            "\(missing ?? "")"
        )
        #expect(
            missing?.contains(
                "entry 2 of [[classes.bulk.bandwidth]]: expected an integer number of bytes per second \(range), not 1"
            ) == true,
            "\(missing ?? "")"
        )
        let unknown = ConfigLoader.refusal(
            "[[limits.bandwidth]]\nwindow = \"08:00-18:00\"\nmax_bytes_per_second = 4096\nrate = 1\n"
        )
        #expect(
            unknown?.contains(
                "limits.bandwidth.rate: unknown key in entry 1 of [[limits.bandwidth]]; known: max_bytes_per_second, window"
            ) == true,
            "\(unknown ?? "")"
        )
        #expect(
            ConfigLoader.refusal("[limits]\nbandwidth = 5\n")?.contains(
                "limits.bandwidth: expected [[limits.bandwidth]] tables, each with window = \"HH:MM-HH:MM\" and max_bytes_per_second"
            ) == true
        )
    }

    @Test func theJobFieldIsCheckedAndEchoed() throws {
        let submission = try WireDecoding.decode(
            JobSubmission.self,
            from: Data(
                #"{"kind":"fetch","url":"http://h/x","destination":"/tmp/x","max_bytes_per_second":2097152}"#.utf8
            )
        )
        #expect(submission.maxBytesPerSecond == 2 << 20)
        let spec = try submission.spec()
        #expect(spec.maxBytesPerSecond == 2 << 20)
        let validator = JobSpecValidator(limits: SubmissionLimits())
        try validator.validate(spec)
        var slow = spec
        slow.maxBytesPerSecond = 1000
        do {
            try validator.validate(slow)
            Issue.record("a rate of 1000 was accepted")
        } catch {
            #expect(error.field == "max_bytes_per_second")
            #expect(
                error.message
                    == "max_bytes_per_second is 1000; give bytes per second from 1024 (1 KiB/s) to 1099511627776 (1 TiB/s)"
            )
        }
        let job = Job(id: JobID(1), owner: OwnerID(0), spec: spec, state: .queued, createdAt: Date(), updatedAt: Date())
        let view = JobView(job)
        #expect(view.maxBytesPerSecond == 2 << 20)
        var writer = JSONWriter(capacity: 256, encoder: JSONEncoder.init)
        try view.write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self).contains(#""max_bytes_per_second":2097152"#))
        // A job without one shows no such key.
        var plain = JSONWriter(capacity: 256, encoder: JSONEncoder.init)
        var unlimited = job
        unlimited.spec.maxBytesPerSecond = nil
        try JobView(unlimited).write(to: &plain)
        #expect(!String(decoding: plain.bytes, as: UTF8.self).contains("max_bytes_per_second"))
    }
}
