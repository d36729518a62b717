import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `POST /v1/reload`: the answer comes after the reload and says whether the new config was
/// taken. Called in-process; `lullctl reload`'s exit status over the socket is
/// `ReloadCommandTests`.
@Suite struct ReloadRouteTests {
    @Test func aRefusedConfigFailsTheReloadWithFileAndLineAndTheOldPolicyStays() async throws {
        try await withInProcessDaemon(config: "[classes.nightly]\nmax_concurrent = 1\n") { daemon, client in
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
            #expect(try await client.status().pid == daemon.pid)
        }
    }

    /// The peer's uid is the kernel's word on the socket (`SO_PEERCRED`, proved live by
    /// `OwnershipTests`); here it is given, so no second user or setpriv is needed.
    @Test func onlyRootOrTheDaemonsUserMayReload() async throws {
        try await withInProcessDaemon { daemon, _ in
            let nobody = daemon.client(uid: 65534)
            defer { Task { await nobody.shutdown() } }
            do {
                _ = try await nobody.reload()
                Issue.record("uid 65534 reloaded the config")
            } catch LullClientError.api(let status, let detail) {
                #expect(status == 403)
                #expect(detail.message.contains("only root"), "\(detail.message)")
            }
        }
    }
}
