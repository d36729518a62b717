import Foundation
import LullAPI
import LullClient
import LullCore
import LullStore
import LullTestSupport
import Testing

/// A resumed fetch must not splice two versions of a resource. The server here ignores
/// `If-Range`: after the resource changed it still answers the range request with `206`, but
/// with the new version's validator. The download has to notice and start over.
@Suite struct FetchResumeVersionTests {
    enum Validator: String, Sendable, CaseIterable {
        case etag, lastModified

        func route(_ body: [UInt8], version: Int, faults: [TestHTTPServer.Fault] = []) -> TestHTTPServer.Route {
            switch self {
            case .etag: .init(body: body, etag: value(version: version), faults: faults, ignoresIfRange: true)
            case .lastModified:
                .init(body: body, lastModified: value(version: version), faults: faults, ignoresIfRange: true)
            }
        }

        func value(version: Int) -> String {
            switch self {
            case .etag: "\"v\(version)\""
            case .lastModified: ["Sun, 01 Jun 2025 10:00:00 GMT", "Mon, 02 Jun 2025 10:00:00 GMT"][version - 1]
            }
        }
    }

    @Test(arguments: Validator.allCases)
    func a206OfAnotherVersionStartsTheDownloadOver(_ validator: Validator) async throws {
        let old = [UInt8](repeating: UInt8(ascii: "A"), count: 1000)
        let new = [UInt8](repeating: UInt8(ascii: "B"), count: 1000)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        // The cut goes through a proxy so it comes after the new version is in place: the second
        // attempt can only ever see version 2.
        let proxy = try await CuttingProxy.start(forwardingTo: server.port)
        defer { Task { await proxy.stop() } }
        server.route("/file", validator.route(old, version: 1, faults: [.stallAfter(400)]))
        try await withDaemon(config: fastRetries) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("file.bin").path
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:\(proxy.port)/file",
                    destination: destination
                )
            )
            try await awaitEvent(client: client, "the first 400 bytes arriving") {
                $0.jobId == job.id && $0.type == .progress && ($0.progress?.bytesDone ?? 0) >= 400
            }
            server.route("/file", validator.route(new, version: 2))
            proxy.cutAll()

            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.attempts == 2, "the new version is fetched in the attempt that found it")
            let written = try Data(contentsOf: URL(fileURLWithPath: destination))
            #expect(written == Data(new), "\(written.count { $0 == old[0] }) bytes of the old version in the file")
            let requests = server.requests.filter { $0.uri == "/file" }
            try #require(requests.count == 3, "\(requests.map { ($0.header("range"), $0.header("if-range")) })")
            #expect(requests[1].header("range") == "bytes=400-", "the second attempt did try to resume")
            #expect(requests[1].header("if-range") == validator.value(version: 1))
            #expect(requests[2].header("range") == nil, "then asked for the whole new version")
            switch validator {
            case .etag: #expect(done.result?.etag == validator.value(version: 2))
            case .lastModified: #expect(done.result?.lastModified == validator.value(version: 2))
            }
        }
    }

    /// A `206` that names no total (`bytes 400-999/*`) and ends its chunked body early: nothing
    /// in the framing gives it away, but the range says where the body should have ended. The
    /// download is truncated (and resumes), not finished with 700 of 1,000 bytes.
    @Test func aShortRangeWithAnUnknownTotalIsTruncatedNotDone() async throws {
        let content = TestHTTPServer.bytes(count: 1000, seed: 5)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route(
            "/file",
            .init(body: content, etag: "\"c1\"", faults: [.endChunkedAfter(300)], hidesTotalLength: true)
        )
        try await withDaemon(config: holdEverything) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("file.bin").path
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/file"), destination: destination)
            )
            // A first attempt that got 400 bytes and stopped, as a stop of the daemon leaves it.
            try await restartAfterInterruptedFetch(daemon, job: job, staged: content[..<400], validator: "\"c1\"")

            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(done.attempts == 2, "the short answer is a truncated attempt")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
            let ranges = server.requests.filter { $0.uri == "/file" }.map { $0.header("range") }
            #expect(ranges == ["bytes=400-", "bytes=700-"], "the second attempt resumes where the short body ended")
        }
    }

    /// A stop between the last byte and the rename leaves a complete partial file: resuming
    /// asks for the range past its end, which the server refuses with 416. The fetch then
    /// asks for the whole resource again instead of failing for good.
    @Test func aPartialFileThatIsAlreadyCompleteIsFetchedAgainNotFailed() async throws {
        let content = TestHTTPServer.bytes(count: 1000, seed: 4)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/file", .init(body: content, etag: "\"c1\""))
        try await withDaemon(config: holdEverything) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("file.bin").path
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/file"), destination: destination)
            )
            // What a stop right before the rename leaves: the whole body staged, its checkpoint at the end.
            try await restartAfterInterruptedFetch(daemon, job: job, staged: content[...], validator: "\"c1\"")

            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
            let ranges = server.requests.filter { $0.uri == "/file" }.map { $0.header("range") }
            #expect(ranges == ["bytes=1000-", nil], "416 for the range past the end, then the whole file")
        }
    }

    /// Stops the daemon and leaves what an attempt interrupted after `staged` bytes leaves: the
    /// bytes in the staging file beside `file.bin` and the checkpoint in the store. Then starts
    /// it again with quick retries, so the job runs at once.
    private func restartAfterInterruptedFetch(
        _ daemon: DaemonProcess,
        job: JobView,
        staged: ArraySlice<UInt8>,
        validator: String
    ) async throws {
        #expect(daemon.stop() == 0)
        let store = try SQLiteJobStore(path: daemon.stateDirectory + "/lull.sqlite")
        _ = try await store.apply(
            JobUpdate(
                id: JobID(job.id),
                from: [.queued],
                to: .queued,
                event: .progress,
                time: Date(),
                resume: ResumeState(validator: validator, offset: Int64(staged.count)),
                silent: true
            )
        )
        let staging = daemon.directory.appendingPathComponent(".file.bin.lull-\(job.id).part").path
        try Data(staged).write(to: URL(fileURLWithPath: staging))
        try fastRetries.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try daemon.start()
    }
}
