import Foundation
import LullCore
import LullTestSupport
import Testing

@testable import LullStore

/// The `spec` column is written by `JSONWriter` and read back by `JSONDecoder`: every spec must
/// come back equal, and carry the keys `JSONEncoder` would have written.
@Suite struct StoredSpecJSONTests {
    static let strings = [
        "", "plain", "quote \" and backslash \\", "a/b/c", "tab\tnew\nline", "\u{0}\u{1f}\u{7f}", "é 中文 🚀",
        "\u{2028}", "{\"json\":[1]}",
    ]
    static let numbers: [Double] = [0, 1, 0.1, 2.5e-7, 1e15, 1e21, 123_456.789, 1.0 / 3]

    /// Seeded specs of every kind, with each optional field left out about a third of the time.
    static func specs(_ count: Int) -> [JobSpec] {
        var random = SeededGenerator(seed: 7)
        return (0..<count).map { _ in
            func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
            func maybe<T>(_ value: T) -> T? { random.next() % 3 == 0 ? nil : value }
            let url = "https://h.example/" + pick(strings)
            let headers = maybe([pick(strings): pick(strings), "Idempotency-Key": pick(strings)])
            let payload: JobPayload =
                switch pick(JobKind.allCases) {
                case .fetch:
                    .fetch(
                        FetchJob(
                            url: url,
                            destination: pick(strings),
                            headers: headers,
                            sha256: maybe(pick(strings)),
                            expectedBytes: maybe(Int64(random.next() >> 2)),
                            maxBytes: maybe(Int64(random.next() % 1_000_000)),
                            fileMode: maybe(FileMode(UInt32(random.next() % 0o1000))!),
                            caFile: maybe(pick(strings)),
                            expectedBytesUp: maybe(Int64(random.next() % 1 << 40))
                        )
                    )
                case .push:
                    .push(
                        PushJob(
                            url: url,
                            method: maybe(pick(["POST", "PUT", "PATCH"])),
                            headers: headers,
                            contentType: maybe(pick(strings)),
                            body: maybe([0, 1, 127, 255]),
                            idempotencyKey: maybe(pick(strings)),
                            caFile: maybe(pick(strings)),
                            expectedBytesUp: maybe(Int64(random.next() % 1 << 40))
                        )
                    )
                case .upload:
                    .upload(
                        UploadJob(
                            url: url,
                            source: pick(strings),
                            method: maybe(pick(["POST", "PUT"])),
                            headers: headers,
                            contentType: maybe(pick(strings)),
                            uploadProtocol: maybe(pick(UploadProtocol.allCases)),
                            formField: maybe(pick(strings)),
                            chunkBytes: maybe(Int64(random.next() % 1 << 30)),
                            caFile: maybe(pick(strings)),
                            expectedBytesUp: maybe(Int64(random.next() % 1 << 40))
                        )
                    )
                case .run:
                    .run(
                        RunJob(
                            argv: [pick(strings), pick(strings)],
                            workingDirectory: maybe(pick(strings)),
                            environment: maybe([pick(strings): pick(strings)]),
                            retryExitCodes: maybe([1, Int(random.next() % 255) + 1]),
                            stopGraceSeconds: maybe(pick(numbers)),
                            outputTailBytes: maybe(Int(random.next() % 1 << 20)),
                            nice: maybe(Int(random.next() % 40) - 20),
                            resources: RunResources(
                                cpuWeight: maybe(Int(random.next() % 10_000) + 1),
                                memoryMax: maybe(Int64(random.next() >> 1)),
                                ioWeight: maybe(Int(random.next() % 10_000) + 1),
                                tasksMax: maybe(Int(random.next() % 4_194_304) + 1)
                            )
                        )
                    )
                }
            return JobSpec(
                payload,
                label: maybe(pick(strings)),
                jobClass: pick(strings),
                retry: maybe(
                    RetrySettings(maxAttempts: maybe(5), baseSeconds: maybe(pick(numbers)), capSeconds: maybe(600))
                ),
                timeouts: maybe(TimeoutSettings(connectSeconds: maybe(2), idleSeconds: maybe(pick(numbers)))),
                constraints: maybe(
                    JobConstraints(
                        network: pick(JobConstraints.Network.allCases),
                        requiresAC: random.next() % 2 == 0,
                        minBattery: maybe(pick(numbers)),
                        requiresIdle: random.next() % 2 == 0
                    )
                ),
                notBefore: maybe(Date(timeIntervalSinceReferenceDate: pick(numbers) * 1e3 + 0.25)),
                deadline: maybe(Date(timeIntervalSince1970: 1_763_751_483.123_456)),
                onDeadline: maybe(pick(DeadlineAction.allCases)),
                periodic: maybe(PeriodicSchedule(every: 3600, flex: pick(numbers), jitter: 0, maxEvery: maybe(7200))),
                periodInterval: maybe(pick(numbers)),
                onCompleteUnit: maybe(pick(strings)),
                maxBytesPerSecond: maybe(2_097_152)
            )
        }
    }

    /// A spec of each kind with every field set, so that a field the writer forgets cannot hide as nil.
    static func full(_ payload: JobPayload) -> JobSpec {
        JobSpec(
            payload,
            label: "l",
            jobClass: "bulk",
            retry: RetrySettings(maxAttempts: 5, baseSeconds: 2.5, capSeconds: 600),
            timeouts: TimeoutSettings(connectSeconds: 2, idleSeconds: 30, totalSeconds: 3_600),
            constraints: JobConstraints(network: .unmetered, requiresAC: true, minBattery: 20.5, requiresIdle: true),
            notBefore: Date(timeIntervalSince1970: 1_763_751_483.25),
            deadline: Date(timeIntervalSince1970: 1_763_851_483),
            onDeadline: .expire,
            periodic: PeriodicSchedule(every: 3_600, flex: 600, jitter: 5, maxEvery: 7_200),
            periodInterval: 3_600,
            onCompleteUnit: "done.service",
            maxBytesPerSecond: 1_048_576
        )
    }

    static let fulls = [
        full(
            .fetch(
                FetchJob(
                    url: "https://h.example/f",
                    destination: "/srv/d",
                    headers: ["X-A": "1"],
                    sha256: "ab",
                    expectedBytes: 100,
                    maxBytes: 1_000,
                    fileMode: FileMode(0o640),
                    caFile: "/etc/ssl/lab-ca.pem",
                    expectedBytesUp: 7
                )
            )
        ),
        full(
            .push(
                PushJob(
                    url: "https://h.example/p",
                    method: "PATCH",
                    headers: ["X-A": "1"],
                    contentType: "application/json",
                    body: [1, 2],
                    idempotencyKey: "k-1",
                    caFile: "/etc/ssl/lab-ca.pem",
                    expectedBytesUp: 7
                )
            )
        ),
        full(
            .upload(
                UploadJob(
                    url: "https://h.example/u",
                    source: "/srv/s",
                    method: "POST",
                    headers: ["X-A": "1"],
                    contentType: "application/offset+octet-stream",
                    uploadProtocol: .tus,
                    formField: "file",
                    chunkBytes: 1 << 20,
                    caFile: "/etc/ssl/lab-ca.pem",
                    expectedBytesUp: 7
                )
            )
        ),
        full(
            .run(
                RunJob(
                    argv: ["sh", "-c", "echo hi"],
                    workingDirectory: "/srv",
                    environment: ["X": "1"],
                    retryExitCodes: [3],
                    stopGraceSeconds: 1.5,
                    outputTailBytes: 100,
                    nice: 5,
                    resources: RunResources(cpuWeight: 200, memoryMax: 1 << 30, ioWeight: 50, tasksMax: 64),
                    unit: "backup.service"
                )
            )
        ),
    ]

    @Test(arguments: fulls) func aFullSpecMeansWhatJSONEncoderWrites(full: JobSpec) throws {
        #expect(unsetOptionals(in: full).isEmpty, "set these in `full`: \(unsetOptionals(in: full))")
        let written = Array(try full.storedJSON().utf8)
        #expect(try JSONDecoder().decode(JobSpec.self, from: Data(written)) == full)
        #expect(try jsonKeyPaths(written) == jsonKeyPaths(try JSONEncoder().encode(full)))
    }

    /// JSONEncoder refuses a NaN or an infinity; the writer would have stored `null` there,
    /// leaving a job no later read decodes.
    @Test func aNonFiniteNumberIsRefusedNotStored() throws {
        var spec = JobSpec(.fetch(FetchJob(url: "http://h/x", destination: "/tmp/x")))
        spec.periodInterval = .infinity
        #expect(throws: EncodingError.self) { try spec.storedJSON() }
        spec.periodInterval = .nan
        #expect(throws: EncodingError.self) { try spec.storedJSON() }
    }

    @Test func meansWhatJSONEncoderWrites() throws {
        for spec in Self.specs(300) {
            let written = Array(try spec.storedJSON().utf8)
            #expect(!written.contains { $0 < 0x20 }, "raw control character in \(spec)")
            let encoded = try JSONEncoder().encode(spec)
            #expect(try JSONDecoder().decode(JobSpec.self, from: Data(written)) == spec)
            #expect(try jsonKeyPaths(written) == jsonKeyPaths(encoded))
        }
    }

    @Test func everySpecReadsBackFromTheStore() async throws {
        try await withTemporaryDirectory("spec") { directory in
            let store = try SQLiteJobStore(path: directory + "/lull.sqlite")
            let specs = Self.specs(300)
            let created = Date(timeIntervalSince1970: 1_800_000_000)
            let jobs = try await store.insert(specs.map { NewJob(owner: OwnerID(1000), spec: $0, createdAt: created) })
            for (job, spec) in zip(jobs, specs) {
                #expect(try await store.job(job.id)?.spec == spec)
            }
        }
    }
}
