import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `kill -HUP` while lulld is still starting — here migrating a store of a million jobs — is a
/// reload that waits for the start, not the end of the daemon (SIGHUP's default action).
@Suite struct ReloadDuringStartupTests {
    @Test func aHangupDuringAMigrationIsAReloadAfterTheStart() async throws {
        // A million jobs, for the test migration to take a while (300,000 took 0.6 s).
        let daemon = try await DaemonProcess.needingASlowMigration(jobs: 1_000_000)
        defer { daemon.remove() }

        let starting = Task.detached { try daemon.start(timeout: .seconds(120)) }
        // Started (its log begun anew), then its first line, which comes before the store opens.
        var found: Int32?
        try await waitUntil("lulld to start", timeout: .seconds(30)) {
            found = Self.pid(of: daemon)
            return found != nil
        }
        let pid = try #require(found)
        try await waitUntil("lulld's first log line", timeout: .seconds(30)) { daemon.log().contains("run jobs:") }
        #expect(!daemon.log().contains("lulld ready"), "the hangups come while lulld starts")
        let hangups = (0..<5).map { _ in kill(pid, SIGHUP) }
        #expect(hangups.allSatisfy { $0 == 0 })
        let opened = ContinuousClock.now
        try await starting.value
        print("lulld reached READY \(ContinuousClock.now - opened) after the hangups")
        try await waitUntil("the reload after the start", timeout: .seconds(20)) {
            daemon.log().contains("policy reloaded")
        }
        #expect(kill(pid, 0) == 0, "lulld is still running")
    }

    /// The lulld started for this daemon's state directory.
    private static func pid(of daemon: DaemonProcess) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
            else { continue }
            let words = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if words.first?.hasSuffix("lulld") == true, words.contains(daemon.stateDirectory) { return pid }
        }
        return nil
    }
}
