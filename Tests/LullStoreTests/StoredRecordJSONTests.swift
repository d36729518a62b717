import Foundation
import LullCore
import LullTestSupport
import Testing

@testable import LullStore

/// The result, failure, resume and event detail columns are written by `JSONWriter` and read
/// back by `JSONDecoder`: each value must come back equal, with the keys `JSONEncoder` writes.
@Suite struct StoredRecordJSONTests {
    static let result = JobResult(
        httpStatus: 200,
        bytes: 1 << 40,
        sha256: "ab",
        path: "/srv/d",
        notModified: false,
        etag: "\"e\"",
        lastModified: "Tue, 24 Nov 2026 10:00:00 GMT",
        responseHeaders: ["Location": "/x", "é": "\u{1}"],
        responseBody: "{\"a\":[1]}\n",
        bytesTransferred: 7,
        uploadURL: "https://h.example/files/1",
        accounting: {
            var accounting = JobAccounting()
            accounting.bytesDown = links(1)
            accounting.bytesUp = links(6)
            accounting.wallSeconds = 1.0 / 3
            accounting.attempts = 2
            accounting.stops = 1
            accounting.daemonCPUSeconds = 2.5e-7
            return accounting
        }(),
        exitCode: 3,
        signal: 9,
        outputTail: "tab\there\nline 🚀",
        cpuSeconds: 1e21,
        memoryPeakBytes: 108_716_032,
        ioReadBytes: 0,
        ioWriteBytes: 8_388_608,
        unit: "lull-job-1.service",
        cgroup: "/lulld/jobs/job-1",
        file: "2049:1234:13:1795000000.5"
    )
    static func links(_ first: Int64) -> LinkBytes {
        var bytes = LinkBytes()
        (bytes.ethernet, bytes.wifi, bytes.cellular, bytes.other, bytes.unknown) =
            (first, first + 1, first + 2, first + 3, first + 4)
        return bytes
    }
    static let failure = JobFailure(code: "http_status", message: "503 \"busy\"", retryable: true, retryAfter: 1.5)
    static let resume = {
        var resume = ResumeState(
            validator: "W/\"v\"",
            offset: 70_744_064,
            uploadURL: "https://h.example/u",
            sourceSize: 1 << 33,
            sourceModified: 1_763_751_483.123_456
        )
        resume.transferredBytes = 12
        return resume
    }()
    static let detail = JobEventDetail(
        progress: TransferProgress(bytesDone: 5, bytesTotal: 10, bytesPerSecond: 0.1),
        result: result,
        failure: failure,
        attempt: 4,
        message: "stopped: \\ on battery",
        retryAt: Date(timeIntervalSince1970: 1_763_751_483.25),
        reason: "on_battery",
        usage: CommandUsage(cpuSeconds: 1.25, cpuPercent: 99.5, memoryBytes: 1 << 20, ioReadBytes: 1, ioWriteBytes: 2)
    )

    func check<T: JSONWritable & Decodable & Equatable>(_ value: T) throws {
        let written = Array(try RowCodec.json(value).utf8)
        #expect(!written.contains { $0 < 0x20 }, "raw control character in \(value)")
        #expect(try JSONDecoder().decode(T.self, from: Data(written)) == value)
        #expect(try jsonKeyPaths(written) == jsonKeyPaths(try JSONEncoder().encode(value)))
    }

    @Test func fullRecordsMeanWhatJSONEncoderWrites() throws {
        // A failure's `result` is not part of its JSON (see the last test), so it stays unset.
        let unset =
            unsetOptionals(in: Self.result) + unsetOptionals(in: Self.resume)
            + unsetOptionals(in: Self.failure).filter { $0 != ".result" }
            + unsetOptionals(in: Self.detail).filter { $0 != ".failure.result" }
        #expect(unset.isEmpty, "set these: \(unset)")
        try check(Self.result)
        try check(Self.failure)
        try check(Self.resume)
        try check(Self.detail)
    }

    @Test func emptyRecordsMeanWhatJSONEncoderWrites() throws {
        try check(JobResult())
        try check(JobFailure(code: "", message: "", retryable: false))
        try check(ResumeState())
        try check(JobEventDetail())
        try check(JobEventDetail(usage: CommandUsage(cpuSeconds: 0, cpuPercent: nil, memoryBytes: 0)))
    }

    /// A failure's result is not part of its JSON (its coding keys leave it out), here as before.
    @Test func aFailuresResultStaysOutOfItsJSON() throws {
        var failure = Self.failure
        failure.result = Self.result
        let written = try RowCodec.json(failure)
        #expect(!written.contains("\"result\""))
        #expect(try JSONDecoder().decode(JobFailure.self, from: Data(written.utf8)) == Self.failure)
    }

    /// JSONEncoder refuses a NaN or an infinity; so does the store, instead of writing a null that
    /// would not read back into a number that cannot be nil.
    @Test func aNumberThatIsNotFiniteIsRefused() throws {
        #expect(throws: EncodingError.self) {
            try RowCodec.json(CommandUsage(cpuSeconds: .nan, cpuPercent: nil, memoryBytes: 0))
        }
        #expect(throws: EncodingError.self) { try RowCodec.json(JobResult(cpuSeconds: .infinity)) }
    }
}
