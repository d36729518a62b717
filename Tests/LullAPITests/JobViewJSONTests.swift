import Foundation
import LullAPI
import LullCore
import LullTestSupport
import Testing

/// `JSONWriter` answers every submission and list instead of JSONEncoder; its output must mean
/// exactly what JSONEncoder's does: the same value when decoded, and the same keys present.
@Suite struct JobViewJSONTests {
    /// A view with every key set, nested ones included.
    static let full = """
        {"id":42,"kind":"upload","state":"failed","owner_uid":1000,"url":"https://example.test/up",
         "destination":"/srv/d","source":"/srv/s","method":"PUT","label":"nightly","class":"bulk",
         "created_at":"2026-11-21T18:58:03Z","updated_at":"2026-11-21T19:00:00Z","attempts":3,
         "stops":2,"last_stop_reason":"on_battery",
         "progress":{"bytes_done":10,"bytes_total":100,"bytes_per_second":2048,"eta_seconds":44},
         "usage":{"cpu_seconds":1.5,"cpu_percent":98.5,"memory_bytes":1048576,"io_read_bytes":4096,
                  "io_write_bytes":8388608},
         "result":{"http_status":201,"bytes":100,"sha256":"ab","path":"/srv/d","not_modified":false,
                   "etag":"\\"e\\"","last_modified":"Sat","response_headers":{"x-a":"1"},"response_body":"ok",
                   "bytes_transferred":100,"upload_url":"https://example.test/u/1",
                   "exit_code":3,"signal":9,"output_tail":"hi-1\\n","cpu_seconds":1.25,"memory_peak_bytes":209715200,
                   "io_read_bytes":512,"io_write_bytes":8389120,"unit":"lull-job-42.service","cgroup":"/lull/jobs/job-42",
                   "accounting":{"bytes_down":{"wifi":5},"bytes_up":{"wifi":100},"wall_seconds":1.5,
                                 "attempts":3,"stops":2,"daemon_cpu_seconds":0.25}},
         "error":{"code":"http_status","message":"server said 503","retryable":true,"retry_after_seconds":30},
         "sha256":"cd","expected_bytes":100,"max_bytes":1000,"mode":"0640","protocol":"tus","chunk_bytes":1048576,
         "ca_file":"/etc/ssl/lab-ca.pem",
         "retry":{"max_attempts":5,"base_seconds":2.5,"cap_seconds":600},
         "timeouts":{"connect_seconds":2,"idle_seconds":30,"total_seconds":3600},
         "max_bytes_per_second":2097152,
         "retry_at":"2026-11-21T19:05:00Z",
         "waiting_for":[{"code":"power","text":"on battery","seen":"battery 40%","limit":"AC",
                         "setting":"requires_ac","class":"bulk","config":"lull.toml:3","from_job":true,
                         "until":"2026-11-22T00:00:00Z"}],
         "network":"unmetered","requires_ac":true,"min_battery":20.5,"requires_idle":true,
         "not_before":"2026-11-21T20:00:00Z",
         "deadline":"2026-11-23T00:00:00Z","on_deadline":"expire",
         "periodic":{"every_seconds":3600,"flex_seconds":600,"jitter_seconds":0,"max_every_seconds":7200},
         "period_seconds":3600,"on_complete_unit":"backup-done.service",
         "argv":["sh","-c","echo \\"$1\\"\\n","$(id);x"],"working_directory":"/srv","environment":{"X":"1"},
         "retry_exit_codes":[3,75],"stop_grace_seconds":1.5,"output_tail_bytes":65536,"nice":5,
         "cpu_weight":200,"memory_max":2147483648,"io_weight":50,"tasks_max":64,"unit":"backup.service"}
        """

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: some Sequence<UInt8>) throws -> T {
        try WireJSON.decoder().decode(type, from: Data(bytes))
    }

    /// Decodes both forms and compares the values and, recursively, the keys each object has.
    static func expectSameMeaning<T: JSONWritable & Decodable & Equatable>(
        _ value: T,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let written = try value.jsonBytes()
        let encoded = try WireJSON.encoder().encode(value)
        // JSON allows no raw control characters (Foundation's parsers would take them anyway),
        // and the writer adds no whitespace of its own.
        #expect(!written.contains { $0 < 0x20 }, sourceLocation: sourceLocation)
        #expect(try decode(T.self, written) == decode(T.self, encoded), sourceLocation: sourceLocation)
        #expect(try jsonKeyPaths(written) == jsonKeyPaths(encoded), sourceLocation: sourceLocation)
    }

    @Test func everyKeyMeansWhatJSONEncoderWrites() throws {
        let view = try Self.decode(JobView.self, Array(Self.full.utf8))
        #expect(unsetOptionals(in: view).isEmpty, "set these in `full`: \(unsetOptionals(in: view))")
        try Self.expectSameMeaning(view)
    }

    @Test func aViewWithoutResultReadsAsAClientExpects() throws {
        var view = try Self.decode(JobView.self, Array(Self.full.utf8))
        view.result = nil
        view.error = nil
        view.periodic = nil
        let text = String(decoding: try view.jsonBytes(), as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"id":42,"kind":"upload","state":"failed","owner_uid":1000,"url":"https://example.test/up","#
            )
        )
        #expect(text.contains(#""created_at":"2026-11-21T18:58:03Z""#))
        #expect(text.contains(#""min_battery":20.5,"#))
        #expect(text.contains(#""period_seconds":3600,"#))
        #expect(!text.contains("result") && !text.contains("periodic"))
    }

    /// Seeded variations: keys dropped, strings that need escaping, awkward numbers and times.
    @Test func variationsMeanWhatJSONEncoderWrites() throws {
        let base = try Self.decode(JobView.self, Array(Self.full.utf8))
        let strings = [
            "", "plain", "quote \" and backslash \\", "a/b/c", "tab\tnew\nline\rcr", "\u{0}\u{1}\u{8}\u{c}\u{1f}",
            "\u{7f}", "é 中文 🚀", "\u{2028}\u{2029}", "{\"json\":[1]}",
        ]
        let numbers: [Double] = [0, -0.0, 1, -1, 0.1, 2.5e-7, 1e15, 1e21, 123_456.789, 9_007_199_254_740_992, 1.0 / 3]
        let times: [Double] = [0, 1_763_751_483.75, -86_399.5, 4_102_444_800.999, 951_782_400]
        var random = SeededGenerator(seed: 2026)
        for _ in 0..<400 {
            var view = base
            func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
            func maybe<T>(_ value: T?) -> T? { random.next() % 3 == 0 ? nil : value }
            view.id = Int64(bitPattern: random.next() >> 1)
            view.url = pick(strings)
            view.destination = maybe(pick(strings))
            view.source = maybe(pick(strings))
            view.method = maybe(pick(strings))
            view.label = maybe(pick(strings))
            view.jobClass = pick(strings)
            view.createdAt = Date(timeIntervalSince1970: pick(times))
            view.updatedAt = Date(timeIntervalSince1970: pick(times))
            view.attempts = Int(random.next() % 1000)
            view.progress = maybe(view.progress)
            view.progress?.bytesPerSecond = maybe(pick(numbers))
            view.result = maybe(view.result)
            view.error = maybe(view.error)
            view.error?.message = pick(strings)
            view.error?.retryAfterSeconds = maybe(pick(numbers))
            view.sha256 = maybe(view.sha256)
            view.expectedBytes = maybe(Int64(random.next() % 1_000_000))
            view.maxBytes = maybe(view.maxBytes)
            view.uploadProtocol = maybe(pick(UploadProtocol.allCases))
            view.chunkBytes = maybe(Int64(random.next() % 1 << 30))
            view.caFile = maybe(pick(strings))
            view.retry = maybe(view.retry)
            view.timeouts = maybe(view.timeouts)
            view.retryAt = maybe(Date(timeIntervalSince1970: pick(times)))
            view.waitingFor = maybe(
                view.waitingFor.map { reasons in
                    reasons.map { reason in
                        var reason = reason
                        reason.text = pick(strings)
                        reason.limit = maybe(pick(strings))
                        reason.until = maybe(Date(timeIntervalSince1970: pick(times)))
                        reason.fromJob = random.next() % 2 == 0
                        return reason
                    } + [reason(pick(strings))]
                }
            )
            view.network = maybe(pick(JobConstraints.Network.allCases))
            view.requiresAC = maybe(random.next() % 2 == 0)
            view.minBattery = maybe(pick(numbers))
            view.requiresIdle = maybe(true)
            view.notBefore = maybe(Date(timeIntervalSince1970: pick(times)))
            view.deadline = maybe(view.deadline)
            view.onDeadline = maybe(pick(DeadlineAction.allCases))
            view.periodic = maybe(view.periodic)
            view.periodSeconds = maybe(pick(numbers))
            view.onCompleteUnit = maybe(pick(strings))
            view.maxBytesPerSecond = maybe(Int64(random.next() % (1 << 40)))
            view.mode = maybe(pick(["0644", "0600", "0777"]))
            view.memoryMax = maybe(Int64(random.next() >> 1))
            view.tasksMax = maybe(view.tasksMax)
            try Self.expectSameMeaning(view)
        }
    }

    /// Years outside 1600–9999 leave the fast path; the text must still be JSONEncoder's (which
    /// counts days before 1582 in the Julian calendar).
    @Test(arguments: [-62_198_755_200.0, -30_610_224_000, -11_676_096_000, 253_402_300_800, 3e11])
    func timesOutsideFourDigitYearsAreWrittenAsJSONEncoderWritesThem(seconds: Double) throws {
        var view = try Self.decode(JobView.self, Array(Self.full.utf8))
        view.notBefore = Date(timeIntervalSince1970: seconds)
        let written = String(decoding: try view.jsonBytes(), as: UTF8.self)
        let encoded = String(decoding: try WireJSON.encoder().encode(view), as: UTF8.self)
        let field = #/"not_before":"([^"]*)"/#
        let writtenTime = try #require(try field.firstMatch(in: written)?.1)
        #expect(try writtenTime == field.firstMatch(in: encoded)?.1)
    }

    @Test func listsAndBatchesMeanWhatJSONEncoderWrites() throws {
        let view = try Self.decode(JobView.self, Array(Self.full.utf8))
        var other = view
        other.result = nil
        other.waitingFor = []
        try Self.expectSameMeaning(JobListView(jobs: [view, other], nextAfter: 43))
        try Self.expectSameMeaning(JobListView(jobs: [], nextAfter: nil))
        try Self.expectSameMeaning(BatchView(jobs: [other, view, other]))
    }

    /// The event stream and event pages write events without JSONEncoder too.
    @Test func eventsMeanWhatJSONEncoderWrites() throws {
        let job = try Self.decode(JobView.self, Array(Self.full.utf8))
        let event = #"""
            {"seq":7,"job_id":42,"owner_uid":1000,"time":"2026-11-21T19:00:00Z","type":"retrying",
             "state":"queued","attempt":2,"message":"stopped: \\ on \"battery\"\n",
             "retry_at":"2026-11-21T19:05:00Z","reason":"on_battery"}
            """#
        var full = try Self.decode(EventView.self, Array(event.utf8))
        (full.progress, full.usage, full.result, full.error) = (job.progress, job.usage, job.result, job.error)
        #expect(unsetOptionals(in: full).isEmpty, "set these: \(unsetOptionals(in: full))")
        try Self.expectSameMeaning(full)
        var bare = full
        (bare.attempt, bare.progress, bare.usage, bare.result, bare.error) = (nil, nil, nil, nil, nil)
        (bare.message, bare.retryAt, bare.reason) = (nil, nil, nil)
        try Self.expectSameMeaning(bare)
        try Self.expectSameMeaning(EventPageView(events: [full, bare], lastSeq: 8))
        try Self.expectSameMeaning(EventPageView(events: [], lastSeq: 0))
    }

    func reason(_ text: String) -> WaitingReasonView {
        let json = #"{"code":"window","text":"","seen":"10:00","from_job":false}"#
        var reason = try! Self.decode(WaitingReasonView.self, Array(json.utf8))
        reason.text = text
        return reason
    }
}
