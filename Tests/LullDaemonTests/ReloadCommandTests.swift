import Foundation
import LullAPI
import LullClient
import LullTestSupport
import Testing

/// `lullctl reload` against a live lulld, as systemd's `ExecReload=` runs it: a refused config
/// fails the command, naming the file and line. The route itself is `ReloadRouteTests`.
@Suite struct ReloadCommandTests {
    @Test func aRefusedConfigFailsLullctlReloadWithFileAndLine() async throws {
        try await withDaemon(config: "[classes.nightly]\nmax_concurrent = 1\n") { daemon, client in
            try "[classes.photos]\nmax_concurrent = \"many\"\n".write(
                toFile: daemon.configPath,
                atomically: true,
                encoding: .utf8
            )
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
}
