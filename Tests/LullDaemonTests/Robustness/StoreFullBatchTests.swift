import Foundation
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Submissions that share a commit on a store whose disk fills: each one that fails says the
/// disk is full (`StoreFullError`, the API's 507), whichever of them hit the limit.
@Suite(.serialized, .enabled(if: TmpfsMount.isPossible, "needs root (mount -t tmpfs) for the full-disk tests"))
struct StoreFullBatchTests {
    @Test func everySubmissionThatFailsInAFullCommitSaysTheDiskIsFull() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-full-batch-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try CommandRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", directory]).status == 0)
        defer { _ = try? CommandRunner.run("/bin/umount", ["-l", directory]) }
        let store = try SQLiteJobStore(path: directory + "/lull.sqlite")
        let spec = try JobSubmission(
            kind: .push,
            url: "http://127.0.0.1:9/p",
            body: String(repeating: "x", count: 4000)
        )
        .spec().prepared()
        var kinds: [String: Int] = [:]
        for round in 0..<40 {
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<32 {
                    group.addTask {
                        do {
                            _ = try await store.insert([NewJob(owner: OwnerID(1000), spec: spec, createdAt: Date())])
                            return "ok"
                        } catch is StoreFullError {
                            return "full"
                        } catch {
                            return "other: \(error)"
                        }
                    }
                }
                var all: [String] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            for outcome in outcomes {
                kinds[outcome.hasPrefix("other") ? String(outcome.prefix(120)) : outcome, default: 0] += 1
            }
            if outcomes.allSatisfy({ $0 != "ok" }) && round > 2 { break }
        }
        print("submissions into a filling store: \(kinds)")
        #expect(kinds["full", default: 0] > 0, "the store never filled: \(kinds)")
        #expect(kinds.keys.allSatisfy { $0 == "ok" || $0 == "full" }, "\(kinds)")
    }
}
