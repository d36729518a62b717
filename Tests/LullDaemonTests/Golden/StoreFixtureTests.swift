import Foundation
import GRDB
import LullAPI
import LullClient
import LullCore
import LullStore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A store written before the job model's refactor (`StoreFixture`) opens with today's code and
/// every job reads back as it was written; a live lulld on it runs its queued fetch.
@Suite struct StoreFixtureTests {
    /// What `GET /v1/jobs/{id}` shows of each stored job (no waiting reasons), as written then.
    static let views: [Int64: String] = [
        1: #"""
        {"id":1,"kind":"fetch","state":"queued","owner_uid":1000,"url":"http://127.0.0.1:9/golden/plain.txt",
         "destination":"/nonexistent/lull-golden/plain.txt","class":"default","created_at":"2026-11-21T18:58:03Z",
         "updated_at":"2026-11-21T18:58:03Z","attempts":0,"mode":"0644"}
        """#,
        2: #"""
        {"id":2,"kind":"fetch","state":"queued","owner_uid":1000,
         "url":"https://files.example.test/data/archive.tar.gz?v=2&x=%20","destination":"/srv/lull/archive.tar.gz",
         "label":"nightly archive","class":"background","created_at":"2026-11-21T18:58:03Z",
         "updated_at":"2026-11-21T18:58:15Z","attempts":0,"progress":{"bytes_done":65536,"bytes_total":1048576},
         "sha256":"abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789","expected_bytes":1048576,
         "max_bytes":2097152,"mode":"0640","ca_file":"/etc/ssl/lab-ca.pem",
         "retry":{"max_attempts":5,"base_seconds":2.5,"cap_seconds":600},
         "timeouts":{"connect_seconds":2,"idle_seconds":30.5,"total_seconds":3600},"network":"unmetered",
         "requires_ac":true,"min_battery":20.5,"not_before":"2026-11-21T20:00:00Z",
         "periodic":{"every_seconds":3600,"flex_seconds":600,"jitter_seconds":60,"max_every_seconds":7200},
         "period_seconds":3600,"on_complete_unit":"backup-done.service"}
        """#,
        3: #"""
        {"id":3,"kind":"fetch","state":"succeeded","owner_uid":1000,
         "url":"https://files.example.test/data/archive.tar.gz?v=2&x=%20","destination":"/srv/lull/archive.tar.gz",
         "label":"nightly archive","class":"background","created_at":"2026-11-21T18:58:03Z",
         "updated_at":"2026-11-21T18:58:33Z","attempts":1,
         "result":{"last_modified":"Sat, 21 Nov 2026 18:00:00 GMT","etag":"\"v2\"","path":"/srv/lull/archive.tar.gz",
                   "bytes_transferred":1048576,"not_modified":false,
                   "accounting":{"bytes_up":{"wifi":2048},"wall_seconds":12.5,
                                 "bytes_down":{"ethernet":300,"wifi":1048576},"daemon_cpu_seconds":0.25,"attempts":1},
                   "sha256":"abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
                   "http_status":200,"bytes":1048576},
         "sha256":"abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789","expected_bytes":1048576,
         "max_bytes":2097152,"mode":"0640","ca_file":"/etc/ssl/lab-ca.pem",
         "retry":{"max_attempts":5,"base_seconds":2.5,"cap_seconds":600},
         "timeouts":{"connect_seconds":2,"idle_seconds":30.5,"total_seconds":3600},"network":"unmetered",
         "requires_ac":true,"min_battery":20.5,"not_before":"2026-11-21T20:00:00Z",
         "periodic":{"every_seconds":3600,"flex_seconds":600,"jitter_seconds":60,"max_every_seconds":7200},
         "period_seconds":3600,"on_complete_unit":"backup-done.service"}
        """#,
        4: #"""
        {"id":4,"kind":"push","state":"running","owner_uid":1000,"url":"https://hooks.example.test/notify",
         "method":"PUT","label":"notify","class":"utility","created_at":"2026-11-21T18:58:03Z",
         "updated_at":"2026-11-21T18:58:44Z","attempts":1,"progress":{"bytes_done":12,"bytes_total":24},
         "ca_file":"/etc/ssl/hooks-ca.pem","retry":{"max_attempts":3},"timeouts":{"total_seconds":60},
         "network":"not_cellular","not_before":"2026-11-21T20:00:00Z","deadline":"2026-11-22T20:00:00Z",
         "on_deadline":"expire","on_complete_unit":"notify-done.service"}
        """#,
        5: #"""
        {"id":5,"kind":"push","state":"failed","owner_uid":1000,"url":"https://hooks.example.test/bin",
         "class":"default","created_at":"2026-11-21T18:58:03Z","updated_at":"2026-11-21T18:58:54Z","attempts":1,
         "result":{"http_status":422,
                   "accounting":{"wall_seconds":12.5,"bytes_down":{"wifi":1048576,"ethernet":300},"attempts":1,
                                 "bytes_up":{"wifi":2048},"daemon_cpu_seconds":0.25},
                   "response_headers":{"x-request-id":"r-1","content-type":"application/json"},
                   "response_body":"{\"error\":\"bad\"}"},
         "error":{"code":"http_status","message":"server said 422 Unprocessable Entity","retryable":false},
         "min_battery":50,"deadline":"2026-11-23T00:00:00Z","on_deadline":"run"}
        """#,
        6: #"""
        {"id":6,"kind":"upload","state":"succeeded","owner_uid":1000,"url":"https://store.example.test/put/report.pdf",
         "source":"/home/user/report.pdf","method":"PUT","label":"report","class":"maintenance",
         "created_at":"2026-11-21T18:58:03Z","updated_at":"2026-11-21T18:59:05Z","attempts":1,
         "result":{"bytes_transferred":4096,
                   "accounting":{"attempts":1,"daemon_cpu_seconds":0.25,"bytes_up":{"wifi":2048},"wall_seconds":12.5,
                                 "bytes_down":{"wifi":1048576,"ethernet":300}},
                   "response_headers":{"etag":"\"r1\"","location":"/put/report.pdf"},"bytes":4096,
                   "response_body":"created","http_status":201},
         "protocol":"raw","retry":{"base_seconds":1,"cap_seconds":30},"requires_ac":true}
        """#,
        7: #"""
        {"id":7,"kind":"upload","state":"paused","owner_uid":1000,"url":"https://store.example.test/form",
         "source":"/home/user/photo.jpg","method":"POST","label":"photo","class":"default",
         "created_at":"2026-11-21T18:58:03Z","updated_at":"2026-11-21T18:59:13Z","attempts":0,
         "protocol":"multipart","network":"unmetered"}
        """#,
        8: #"""
        {"id":8,"kind":"upload","state":"queued","owner_uid":1000,"url":"https://tus.example.test/files/",
         "source":"/home/user/video.mkv","label":"video","class":"default","created_at":"2026-11-21T18:58:03Z",
         "updated_at":"2026-11-21T18:59:28Z","attempts":1,"progress":{"bytes_done":2097152,"bytes_total":10485760},
         "error":{"code":"http_status","message":"server said 503 Service Unavailable","retryable":true,
                  "retry_after_seconds":30},
         "protocol":"tus","chunk_bytes":1048576,"timeouts":{"idle_seconds":120},"retry_at":"2026-11-21T18:59:58Z",
         "deadline":"2026-12-01T00:00:00Z","on_deadline":"run"}
        """#,
        9: #"""
        {"id":9,"kind":"fetch","state":"queued","owner_uid":1000,
         "url":"https://files.example.test/data/archive.tar.gz?v=2&x=%20","destination":"/srv/lull/archive.tar.gz",
         "label":"nightly archive","class":"background","created_at":"2026-11-21T18:58:33Z",
         "updated_at":"2026-11-21T18:58:33Z","attempts":0,
         "sha256":"abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789","expected_bytes":1048576,
         "max_bytes":2097152,"mode":"0640","ca_file":"/etc/ssl/lab-ca.pem",
         "retry":{"max_attempts":5,"base_seconds":2.5,"cap_seconds":600},
         "timeouts":{"connect_seconds":2,"idle_seconds":30.5,"total_seconds":3600},"network":"unmetered",
         "requires_ac":true,"min_battery":20.5,"not_before":"2026-11-21T20:00:00Z",
         "periodic":{"every_seconds":3600,"flex_seconds":600,"jitter_seconds":60,"max_every_seconds":7200},
         "period_seconds":5400,"on_complete_unit":"backup-done.service"}
        """#,
    ]

    /// What a job holds beyond its view: read in one place, so a change of the job's shape
    /// changes `init(_:)` and nothing else here.
    struct Unshown: Equatable {
        var createdAt: Date
        var updatedAt: Date
        var headers: [String: String]? = nil
        var contentType: String? = nil
        var body: [UInt8]? = nil
        var formField: String? = nil
        var idempotencyKey: String? = nil
        var expectedBytesUp: Int64? = nil
        var periodInterval: Double? = nil
        var resume: ResumeState? = nil
        var retryAt: Date? = nil

        init(
            createdAt: Date,
            updatedAt: Date,
            headers: [String: String]? = nil,
            contentType: String? = nil,
            body: [UInt8]? = nil,
            formField: String? = nil,
            idempotencyKey: String? = nil,
            expectedBytesUp: Int64? = nil,
            periodInterval: Double? = nil,
            resume: ResumeState? = nil,
            retryAt: Date? = nil
        ) {
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.headers = headers
            self.contentType = contentType
            self.body = body
            self.formField = formField
            self.idempotencyKey = idempotencyKey
            self.expectedBytesUp = expectedBytesUp
            self.periodInterval = periodInterval
            self.resume = resume
            self.retryAt = retryAt
        }

        init(_ job: Job) {
            createdAt = job.createdAt
            updatedAt = job.updatedAt
            switch job.spec.payload {
            case .fetch(let fetch):
                headers = fetch.headers
                expectedBytesUp = fetch.expectedBytesUp
            case .push(let push):
                headers = push.headers
                contentType = push.contentType
                body = push.body
                idempotencyKey = push.idempotencyKey
                expectedBytesUp = push.expectedBytesUp
            case .upload(let upload):
                headers = upload.headers
                contentType = upload.contentType
                formField = upload.formField
                expectedBytesUp = upload.expectedBytesUp
            case .run:
                break  // the fixture holds transfers only
            }
            periodInterval = job.spec.periodInterval
            resume = job.resume
            retryAt = job.retryAt
        }
    }

    static let fetchHeaders = ["Authorization": "Bearer t0k3n", "X-Trace": #"a"b/c"#]

    static let unshown: [Int64: Unshown] = {
        func at(_ seconds: Double) -> Date { GoldenJobs.at(seconds) }
        var fetchResume = ResumeState(validator: #""etag-1""#, offset: 65_536)
        fetchResume.transferredBytes = 70_000
        return [
            1: Unshown(createdAt: at(0), updatedAt: at(0)),
            2: Unshown(
                createdAt: at(0),
                updatedAt: at(12),
                headers: fetchHeaders,
                expectedBytesUp: 512,
                resume: fetchResume
            ),
            3: Unshown(createdAt: at(0), updatedAt: at(30), headers: fetchHeaders, expectedBytesUp: 512),
            4: Unshown(
                createdAt: at(0),
                updatedAt: at(41),
                headers: ["Content-Language": "en", "Idempotency-Key": "client-key-7"],
                contentType: "text/plain; charset=utf-8",
                body: Array("hello \"world\"\nline 2 é".utf8),
                idempotencyKey: "client-key-7"
            ),
            5: Unshown(
                createdAt: at(0),
                updatedAt: at(51),
                contentType: "application/octet-stream",
                body: [0, 1, 2, 253, 254, 255],
                idempotencyKey: "fixed-key-1"
            ),
            6: Unshown(
                createdAt: at(0),
                updatedAt: at(62),
                headers: ["X-Upload": "1"],
                contentType: "application/pdf",
                expectedBytesUp: 4096
            ),
            7: Unshown(createdAt: at(0), updatedAt: at(70), formField: "file"),
            8: Unshown(
                createdAt: at(0),
                updatedAt: at(85),
                headers: ["Upload-Metadata": "filename dmlkZW8ubWt2"],
                resume: ResumeState(
                    offset: 2_097_152,
                    uploadURL: "https://tus.example.test/files/abc",
                    sourceSize: 10_485_760,
                    sourceModified: 1_795_280_000.5
                ),
                retryAt: at(115)
            ),
            9: Unshown(
                createdAt: at(30),
                updatedAt: at(30),
                headers: fetchHeaders,
                expectedBytesUp: 512,
                periodInterval: 5400
            ),
        ]
    }()

    static func view(_ id: Int64) throws -> JobView {
        try WireJSON.decoder().decode(JobView.self, from: Data(try #require(views[id]).utf8))
    }

    /// A view as the wire carries it (times to the second).
    static func shown(_ job: Job) throws -> JobView {
        try WireJSON.decoder().decode(JobView.self, from: Data(try JobView(job).jsonBytes()))
    }

    @Test func everyStoredJobReadsBackFieldForField() async throws {
        if StoreFixture.recording { try await StoreFixture.record() }
        try await withTemporaryDirectory("store-fixture") { directory in
            let store = try SQLiteJobStore(path: try StoreFixture.copy(into: directory + "/state"))
            for id in Int64(1)...9 {
                let job = try #require(try await store.job(JobID(id)))
                #expect(job.owner == OwnerID(1000))
                #expect(try Self.shown(job) == Self.view(id), "job \(id)")
                #expect(Unshown(job) == Self.unshown[id], "job \(id)")
            }
            #expect(try await store.job(JobID(10)) == nil)

            // The scheduler's columns, the event log, validators and hooks as they were written.
            let queued = try await store.queuedJobs(after: nil, limit: 100)
            #expect(queued.map(\.id.rawValue) == [1, 2, 8, 9])
            #expect(
                queued.map(\.host) == ["127.0.0.1", "files.example.test", "tus.example.test", "files.example.test"]
            )
            #expect(queued.map(\.backoffUntil) == [nil, nil, GoldenJobs.at(115), nil])
            let events = try await store.events(after: 0, owner: nil, limit: 1000).items
            #expect(events.map(\.seq) == Array(1...24))
            #expect(events.filter { $0.type == .submitted }.map(\.jobID.rawValue) == [1, 2, 3, 4, 5, 6, 7, 8, 9])
            let last = try #require(events.last)
            #expect(last.jobID == JobID(8) && last.type == .retrying && last.state == .queued)
            #expect(last.detail?.retryAt == GoldenJobs.at(115) && last.detail?.failure?.retryAfter == 30)
            #expect(
                try await store.fetchValidators(
                    owner: OwnerID(1000),
                    url: "https://files.example.test/data/archive.tar.gz?v=2&x=%20",
                    destination: "/srv/lull/archive.tar.gz"
                ) == FetchValidators(etag: #""v2""#, lastModified: "Sat, 21 Nov 2026 18:00:00 GMT")
            )
            #expect(try await store.pendingCompletionHooks().map(\.id) == [JobID(3)])
            #expect(
                try await store.countsByState(owner: nil) == [
                    .queued: 4, .running: 1, .paused: 1, .succeeded: 2, .failed: 1,
                ]
            )
        }
    }

    /// lulld started on the fixture: the old rows are served as they were, and the queued fetch
    /// (pointed at a loopback server: the fixture's URL has no server behind it) runs to the end.
    @Test func lulldRunsTheStoredQueuedFetch() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let content = Array("bytes for a job stored by an earlier lulld\n".utf8)
        server.serve("/golden/plain.txt", content)
        // The stored jobs ended on 2026-11-21; they are compared below whatever today's date.
        let daemon = try DaemonProcess(config: "[limits]\nkeep_finished_days = 36500\n")
        defer { daemon.remove() }
        let path = try StoreFixture.copy(into: daemon.stateDirectory)
        // The job runs with its owner's rights (uid 1000), so its directory is theirs.
        let downloads = daemon.directory.appendingPathComponent("downloads").path
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        if geteuid() == 0 { chown(downloads, 1000, 1000) }
        let destination = downloads + "/plain.txt"
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql: "UPDATE jobs SET spec = replace(replace(spec, ?, ?), ?, ?) WHERE id = 1",
                arguments: [
                    "http://127.0.0.1:9/golden/plain.txt", server.url("/golden/plain.txt"),
                    "/nonexistent/lull-golden/plain.txt", destination,
                ]
            )
        }
        try queue.close()

        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        do {
            let done = try await awaitJob(1, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
            #expect(done.mode == "0644")
            for id in [Int64(3), 5, 6] { #expect(try await client.job(id) == Self.view(id), "job \(id)") }
            #expect(try await client.job(7).state == .paused)
            await client.shutdown()
        } catch {
            await client.shutdown()
            print("lulld log:\n\(daemon.log())")
            throw error
        }
    }

    /// `[limits] keep_finished_days`, shortened by a reload: the stored jobs that ended days ago
    /// go, with their events; unfinished ones stay, and so does a job whose completion hook has
    /// yet to run.
    @Test func lulldForgetsFinishedJobsPastTheirRetention() async throws {
        let daemon = try DaemonProcess(config: "[limits]\nkeep_finished_days = 36500\n")
        defer { daemon.remove() }
        _ = try StoreFixture.copy(into: daemon.stateDirectory)
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        do {
            #expect(try await client.job(5).state == .failed)
            try "[limits]\nkeep_finished_days = 1\n".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            _ = try await client.reload()
            try await waitUntil("jobs 5 and 6 removed") {
                let ids = try await client.allJobs().map(\.id)
                return !ids.contains(5) && !ids.contains(6)
            }
            let ids = try await client.allJobs().map(\.id)
            // Job 3's hook is still due; the rest have not ended (above 9: periodic successors).
            #expect(ids.filter { $0 <= 9 } == [1, 2, 3, 4, 7, 8, 9], "\(ids)")
            for gone in [Int64(5), 6] {
                await #expect(throws: LullClientError.self) { try await client.job(gone) }
            }
            let events = try await client.events(after: 0).events
            #expect(!events.isEmpty)
            #expect(events.allSatisfy { ![Int64(5), 6].contains($0.jobId) })
            #expect(daemon.log().contains("removed 2 jobs that ended before"), "\(daemon.log())")
            await client.shutdown()
        } catch {
            await client.shutdown()
            print("lulld log:\n\(daemon.log())")
            throw error
        }
    }
}
