import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Uploads against tuspyserver, a tus implementation this project did not write.
@Suite(
    .enabled(if: TusServerProcess.isAvailable, "needs python3 with tuspyserver and uvicorn (make test installs them)")
)
struct TusInteropTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/tus_server.py").path

    /// 256 MiB over tus: the network is cut twice and lulld is kill -9ed once along the way; the
    /// server ends up with a byte-identical file. (The cuts come from a proxy rather than from
    /// killing tuspyserver: after a crash tuspyserver appends past its recorded offset, a server
    /// bug no client can repair.)
    @Test func a256MiBUploadSurvivesNetworkCutsAndADaemonRestart() async throws {
        let content = TestHTTPServer.bytes(count: 256 << 20, seed: 11)
        try await withDaemon(config: fastRetries) { daemon, client in
            let tus = try TusServerProcess(
                script: Self.script,
                filesDirectory: daemon.directory.appendingPathComponent("tus").path
            )
            defer { tus.kill() }
            try tus.start()
            let proxy = try await CuttingProxy.start(forwardingTo: tus.port)
            defer { Task { await proxy.stop() } }
            let source = daemon.directory.appendingPathComponent("video.bin").path
            try Data(content).write(to: URL(fileURLWithPath: source))
            // One PATCH per attempt, so that every cut lands in the middle of a request body
            // (a cut between two chunks would only close an idle connection).
            let job = try await client.submit(
                JobSubmission(
                    kind: .upload,
                    url: "http://127.0.0.1:\(proxy.port)/files",
                    source: source,
                    uploadProtocol: .tus,
                    chunkBytes: 1 << 30
                )
            )

            func awaitSent(_ bytes: Int, after seq: Int64 = 0) async throws -> EventView {
                try await awaitEvent(
                    client: client,
                    after: seq,
                    timeout: .seconds(120),
                    "upload past \(bytes >> 20) MiB"
                ) {
                    $0.jobId == job.id
                        && (($0.type == .progress && ($0.progress?.bytesDone ?? 0) >= Int64(bytes))
                            || $0.state.isTerminal)
                }
            }

            let first = try await awaitSent(48 << 20)
            proxy.cutAll()
            let second = try await awaitSent(112 << 20, after: first.seq)
            daemon.kill()
            try daemon.start()
            _ = try await awaitSent(176 << 20, after: second.seq)
            proxy.cutAll()

            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client, timeout: .seconds(240))
            #expect(done.state == .succeeded, "\(String(describing: done.error))")
            let uploadURL = try #require(done.result?.uploadURL)
            let stored = try Data(contentsOf: URL(fileURLWithPath: tus.storedFile(for: uploadURL)))
            #expect(stored.count == content.count)
            #expect(TestHTTPServer.sha256([UInt8](stored)) == TestHTTPServer.sha256(content))
            let events = try await client.events(after: 0).events.filter { $0.jobId == job.id }
            let attempts = events.filter { $0.type == .started }.count
            print(
                "tus upload of 256 MiB: \(attempts) attempts, \(events.filter { $0.type == .retrying }.count) retries, 1 daemon restart"
            )
            #expect(attempts >= 4)
        }
    }
}
