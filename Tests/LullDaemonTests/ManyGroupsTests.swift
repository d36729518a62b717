import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An owner in more than 256 groups (common under AD and sssd) keeps all of them for the file
/// work lulld does as the owner: the 300th grants nobody the directory the fetch writes into.
/// lulld runs in a mount namespace of its own whose `/etc/group` puts nobody in 300 groups.
@Suite(
    .enabled(
        if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv")
            && FileManager.default.fileExists(atPath: "/usr/bin/unshare"),
        "needs root, setpriv and unshare"
    )
)
struct ManyGroupsTests {
    @Test func anOwnerInThreeHundredGroupsKeepsTheLastOne() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-groups-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: work + "/dropbox", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        chmod(work, 0o755)
        var groups = try String(contentsOfFile: "/etc/group", encoding: .utf8)
        if !groups.hasSuffix("\n") { groups += "\n" }
        for index in 0..<300 { groups += "lullmany\(index):x:\(61_000 + index):nobody\n" }
        try groups.write(toFile: work + "/group", atomically: true, encoding: .utf8)
        // Writable only through the last of the 300 groups.
        chown(work + "/dropbox", 0, 61_299)
        chmod(work + "/dropbox", 0o770)

        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let content = TestHTTPServer.bytes(count: 10_000, seed: 81)
        server.serve("/f", content)
        let daemon = try DaemonProcess(
            config: FileSafetyTests.config,
            launcher: [
                "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                "mount --bind \"$0\" /etc/group && exec \"$@\"", work + "/group",
            ]
        )
        defer { daemon.remove() }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }
        let destination = work + "/dropbox/f.bin"
        let job = try FileSafetyTests().submitAsNobody(
            ["fetch", server.url("/f"), "-o", destination],
            socket: daemon.socketPath
        )
        let done = try await awaitJob(job.id, in: [.succeeded, .failed], client: client)
        #expect(done.state == .succeeded, "\(String(describing: done.error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data(content))
    }
}
