import Foundation
import LullCore
import LullTestSupport
import Testing

@testable import LullTransfer

@Suite struct SourceFileTests {
    /// An upload that fails or is cancelled leaves a chunk read started ahead; closing the file
    /// must wait for it, or the read meets a closed (or reused) descriptor.
    @Test func closeWaitsForReadsStartedAhead() async throws {
        try await withTemporaryDirectory("source") { directory in
            let path = directory + "/payload"
            let bytes = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try bytes.write(to: URL(fileURLWithPath: path))

            let owner = OwnerID(geteuid())
            for round in 0..<20 {
                let file = try await SourceFile.open(path, owner: owner, files: FileAccess())
                let offset = Int64(round * 1000)
                let ahead = file.readAhead(at: offset, count: 4096)
                await file.close()
                #expect(file.pendingReads == 0)
                let buffer = try await ahead.value
                #expect(Data(buffer.readableBytesView) == bytes[Int(offset)..<Int(offset) + 4096], "round \(round)")
                await #expect(throws: FileFailure.self) { try await file.readAhead(at: 0, count: 1).value }
            }
        }
    }
}
