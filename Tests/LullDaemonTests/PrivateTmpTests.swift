import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

/// Under `PrivateTmp=yes` the daemon's /tmp and /var/tmp are directories of its own: a file it
/// wrote there was invisible to its owner and deleted at the next stop, while the job said
/// succeeded. Here lulld runs in a mount namespace set up as systemd sets one up (a bind mount
/// from a `systemd-private-…` directory over /var/tmp); the real unit is in SystemdServiceTests.
@Suite(.timeLimit(.minutes(2)), .enabled(if: getuid() == 0, "a mount namespace needs root"))
struct PrivateTmpTests {
    @Test func pathsInTheDaemonsPrivateTmpAreRefusedWithTheReason() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/x.bin", Array(repeating: 7, count: 1000))
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-privtmp-\(UUID().uuidString.prefix(8))"
        )
        let privateTmp = scratch.appendingPathComponent("systemd-private-0123abcd-lulld.service-Xy12Ab/tmp").path
        try FileManager.default.createDirectory(atPath: privateTmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let launcher = [
            "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
            "mount --bind \"$PRIVATE_TMP\" /var/tmp && exec \"$0\" \"$@\"",
        ]
        try await withDaemon(environment: ["PRIVATE_TMP": privateTmp], launcher: launcher) { daemon, client in
            do {
                _ = try await client.submit(
                    JobSubmission(kind: .fetch, url: server.url("/x.bin"), destination: "/var/tmp/x.bin")
                )
                Issue.record("a fetch into the daemon's private /var/tmp was accepted")
            } catch LullClientError.api(let status, let detail) {
                #expect(status == 400 && detail.field == "destination")
                #expect(
                    detail.message.contains("/var/tmp") && detail.message.contains("PrivateTmp=yes"),
                    "\(detail.message)"
                )
            }
            // A path both see is fine.
            let shared = daemon.directory.appendingPathComponent("x.bin").path
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/x.bin"), destination: shared)
            )
            #expect(try await awaitJob(job.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            #expect(daemon.log().contains("private to lulld"), "the start-up log names them")
        }
    }
}
