import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Pausing a running fetch keeps everything it received: the resume point is stored at the
/// pause (flushed first), not at the last periodic checkpoint, so the resumed attempt asks for
/// exactly the rest.
@Suite struct PauseKeepsProgressTests {
    /// No periodic checkpoint after the first (at offset 0, when the headers arrive): whatever
    /// offset the resume asks for, the pause stored it.
    static let config = """
        [transfers]
        checkpoint_interval = 60
        progress_interval = 0.05
        """

    @Test func aPausedFetchResumesFromWhereItWasPaused() async throws {
        let content = TestHTTPServer.bytes(count: 4 << 20, seed: 31)
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        // Slow enough that the pause lands mid-transfer; the resumed request runs at full speed.
        server.route(
            "/slow",
            .init(body: content, etag: "\"p1\"", faults: [.drip(bytes: 32 << 10, every: .milliseconds(50))])
        )
        try await withDaemon(config: Self.config) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("slow.bin").path
            let staging = daemon.directory.appendingPathComponent(".slow.bin.lull-")
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/slow"), destination: destination)
            )
            let received = try await awaitEvent(client: client, "512 KiB received") {
                $0.jobId == job.id && $0.type == .progress && ($0.progress?.bytesDone ?? 0) >= 512 << 10
            }
            let cursor = try await client.status().lastEventSeq ?? 0

            #expect(try await client.pause(job.id).state == .paused)
            // The pause is answered once its attempt has wound down: the staging file is final.
            let stagingPath = staging.path + "\(job.id).part"
            let onDisk = try #require(try FileManager.default.attributesOfItem(atPath: stagingPath)[.size] as? Int)
            #expect(onDisk >= Int(received.progress?.bytesDone ?? 0), "the staging file holds what was received")
            #expect(onDisk < content.count, "the pause came mid-transfer")
            let stored = try await client.events(after: cursor).events.last {
                $0.jobId == job.id && resumableOffset($0) > 0
            }
            #expect(
                stored.map(resumableOffset) == onDisk,
                "the pause stored the staging file's size as the resume point"
            )

            #expect(try await client.resume(job.id).state == .queued)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            let gets = server.requests.filter { $0.uri == "/slow" }
            #expect(gets.count == 2)
            #expect(
                gets.last?.header("range") == "bytes=\(onDisk)-",
                "resumed with \(gets.last?.header("range") ?? "no Range")"
            )
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
        }
    }
}
