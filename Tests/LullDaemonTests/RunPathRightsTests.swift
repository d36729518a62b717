import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A run job's working directory and program are looked for with its owner's rights, not root's:
/// inside a directory the owner may not enter, a path that exists fails exactly as one that does
/// not, so a job cannot learn what is there.
@Suite(
    .enabled(if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv"), "needs root and setpriv")
)
struct RunPathRightsTests {
    @Test func pathsTheOwnerCannotReachFailAlikeWhetherTheyExistOrNot() async throws {
        try await withDaemon(config: FileSafetyTests.config) { daemon, client in
            let closed = daemon.directory.appendingPathComponent("root-only").path
            try FileManager.default.createDirectory(atPath: closed + "/there", withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: closed + "/tool", contents: Data("#!/bin/sh\n".utf8)))
            chmod(closed + "/tool", 0o755)
            chmod(closed, 0o700)
            // Its parents must let nobody through, so that only `root-only` stands in the way.
            chmod(daemon.directory.path, 0o755)

            func failure(_ directory: String, _ argv: [String]) async throws -> FailureView? {
                let submitted = try FileSafetyTests().asNobody(
                    ["submit", "run", "--cwd", directory, "--json", "--socket", daemon.socketPath, "--"] + argv
                )
                #expect(submitted.status == 0, "\(submitted.stderr)")
                let id = try WireJSON.decoder().decode(JobView.self, from: Data(submitted.stdout.utf8)).id
                return try await awaitJob(id, in: [.failed, .succeeded], client: client).error
            }
            let there = try await failure(closed + "/there", ["true"])
            let notThere = try await failure(closed + "/not-there", ["true"])
            #expect(there?.code == "working_directory_unavailable", "\(String(describing: there))")
            #expect(there?.code == notThere?.code)
            #expect(there?.message.contains("Permission denied") == true, "\(String(describing: there))")
            #expect(notThere?.message.contains("Permission denied") == true, "\(String(describing: notThere))")

            let tool = try await failure("/tmp", [closed + "/tool"])
            let noTool = try await failure("/tmp", [closed + "/no-tool"])
            #expect(tool?.code == "command_not_found", "\(String(describing: tool))")
            #expect(tool?.code == noTool?.code)
        }
    }
}
