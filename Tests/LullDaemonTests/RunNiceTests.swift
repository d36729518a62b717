import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// `nice`: the command starts at the niceness the job asks for; out of range is refused by name.
@Suite struct RunNiceTests {
    @Test func aCommandStartsAtItsNiceness() async throws {
        try await withDaemon { daemon, client in
            let submitted = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                // Field 19 of /proc/self/stat is the niceness (of the `cut` that reads it).
                [
                    "submit", "run", "--json", "--nice", "7", "--socket", daemon.socketPath, "--", "sh", "-c",
                    "cut -d' ' -f19 /proc/self/stat",
                ]
            )
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let job = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8))
            #expect(job.nice == 7)
            let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
            #expect(done.state == .succeeded)
            #expect(done.result?.outputTail == "7\n", "\(String(describing: done.result?.outputTail))")

            let refused = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["submit", "run", "--nice", "25", "--socket", daemon.socketPath, "--", "true"]
            )
            #expect(refused.status != 0 && refused.stderr.contains("nice"), "\(refused.stderr)")
        }
    }
}
