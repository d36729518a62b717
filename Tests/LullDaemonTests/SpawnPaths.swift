import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The two ways lulld starts a command itself: as its own user (vfork), and, where the tests
/// run as root with setpriv, as another owner (fork, then the owner's identity). The daemon's
/// socket must be open to nobody (`config`).
enum SpawnPaths {
    static let config = FileSafetyTests.config

    /// `argv`'s output, run each way that can run here, after checking that it succeeded.
    static func outputs(
        of argv: [String],
        daemon: DaemonProcess,
        client: LullClient
    ) async throws -> [(path: String, output: String?)] {
        var outputs: [(path: String, output: String?)] = []
        let own = try await client.submit(JobSubmission(kind: .run, url: "", argv: argv))
        outputs.append(("vfork, lulld's own user", try await output(of: own.id, client: client)))
        if getuid() == 0, FileManager.default.fileExists(atPath: "/usr/bin/setpriv") {
            let submitted = try FileSafetyTests().asNobody(
                ["submit", "run", "--cwd", "/", "--json", "--socket", daemon.socketPath, "--"] + argv
            )
            try #require(submitted.status == 0, "submit as nobody: \(submitted.stderr)")
            let other = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
            outputs.append(("fork, as nobody", try await output(of: other.id, client: client)))
        }
        return outputs
    }

    private static func output(of id: Int64, client: LullClient) async throws -> String? {
        let done = try await awaitJob(id, in: [.succeeded, .failed], client: client)
        #expect(done.state == .succeeded, "job \(id): \(String(describing: done.error))")
        return done.result?.outputTail
    }
}
