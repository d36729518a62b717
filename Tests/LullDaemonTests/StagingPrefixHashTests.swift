import Crypto
import Foundation
import LullCore
import LullTestSupport
import Synchronization
import Testing

@testable import LullTransfer

/// Resuming a download hashes the bytes already on disk after the request was sent: it says
/// it is still reading after every MiB, which keeps the attempt's idle watchdog from taking a
/// long prefix for a stalled server, and the digest is the prefix's.
@Suite struct StagingPrefixHashTests {
    @Test func theHashOfAPrefixReportsEachMiBAndMatches() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-prefix-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("big.bin").path
        let content = TestHTTPServer.bytes(count: 3 << 20 + 12_345, seed: 3)
        #expect(
            FileManager.default.createFile(
                atPath: StagingFile.path(for: destination, jobID: 9),
                contents: Data(content)
            )
        )
        let (staging, kept, _, _) = try await StagingFile.open(
            for: destination,
            jobID: 9,
            owner: OwnerID(getuid()),
            keep: Int64(content.count),
            mode: nil,
            files: FileAccess()
        )
        #expect(kept == Int64(content.count))
        let reads = Atomic<Int>(0)
        let hasher = try await staging.hashPrefix(kept) { reads.add(1, ordering: .relaxed) }
        #expect(reads.load(ordering: .relaxed) == 4, "3 MiB and a bit: four reads")
        #expect(Array(hasher.finalize()) == Array(SHA256.hash(data: content)))
        await staging.close()
    }
}
