import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `POST /v1/reload` and `lullctl reload`: the answer comes after the reload and says whether
/// the new config was taken, so `systemctl reload` can fail when it was refused.
@Suite struct ReloadRouteTests {
    @Test func aRefusedConfigFailsTheReloadWithFileAndLineAndTheOldPolicyStays() async throws {
        try await withDaemon(config: "[classes.nightly]\nmax_concurrent = 1\n") { daemon, client in
            try "[classes.nightly]\nmax_concurrent = 1\n[classes.photos]\nmax_concurrent = 2\n"
                .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            let reloaded = try await client.reload()
            #expect(reloaded.config == daemon.configPath && reloaded.files == [daemon.configPath])
            #expect(reloaded.message.contains("reloaded"))

            try "[classes.photos]\nmax_concurrent = \"many\"\n".write(
                toFile: daemon.configPath,
                atomically: true,
                encoding: .utf8
            )
            do {
                _ = try await client.reload()
                Issue.record("a broken config was accepted")
            } catch LullClientError.api(let status, let detail) {
                #expect(status == 422 && detail.code == "invalid_config")
                #expect(
                    detail.message.contains("\(daemon.configPath):2: classes.photos.max_concurrent"),
                    "\(detail.message)"
                )
            }
            let photos = JobSubmission(
                kind: .fetch,
                url: "http://127.0.0.1:9/p",
                destination: daemon.directory.appendingPathComponent("p").path,
                jobClass: "photos"
            )
            #expect(try await client.submit(photos).jobClass == "photos", "the old policy stays")

            // The command systemd's ExecReload= runs: non-zero, with the reason on stderr.
            let command = try CommandRunner.run(
                DaemonProcess.binary("lullctl"),
                ["--socket", daemon.socketPath, "reload"]
            )
            #expect(command.status == 1)
            #expect(
                command.stderr.contains("reload refused") && command.stderr.contains("\(daemon.configPath):2"),
                "\(command.stderr)"
            )
            #expect(try await client.status().pid == daemon.pid)
        }
    }

    @Test(
        .enabled(
            if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv"),
            "needs root and setpriv"
        )
    )
    func onlyRootOrTheDaemonsUserMayReload() async throws {
        try await withDaemon(config: "[daemon]\nsocket_mode = \"0666\"\n") { daemon, _ in
            let result = try CommandRunner.run(
                "/usr/bin/setpriv",
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", "--", DaemonProcess.binary("lullctl"),
                    "--socket", daemon.socketPath, "reload",
                ]
            )
            #expect(result.status == 1)
            #expect(result.stderr.contains("only root"), "\(result.stderr)")
        }
    }
}
