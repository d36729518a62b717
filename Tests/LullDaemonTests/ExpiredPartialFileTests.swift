import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// A fetch that expires after an attempt (stopped, or waiting to retry) leaves no partial file
/// in its owner's directory, as a cancelled or failed one leaves none.
@Suite struct ExpiredPartialFileTests {
    @Test func anExpiredFetchTakesItsStagingFileWithIt() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let destination = daemon.directory.appendingPathComponent("big.iso").path
            var submission = JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/big.iso", destination: destination)
            submission.deadline = Date().addingTimeInterval(3)
            submission.onDeadline = .expire
            let job = try await client.submit(submission)
            // What an attempt stopped half-way leaves beside the destination.
            let staging = daemon.directory.appendingPathComponent(".big.iso.lull-\(job.id).part").path
            #expect(FileManager.default.createFile(atPath: staging, contents: Data(repeating: 7, count: 4096)))
            try #require(try await client.job(job.id).state == .queued, "the file was made before the job expired")
            let done = try await awaitJob(job.id, in: [.expired], client: client)
            #expect(done.state == .expired)
            try await waitUntil("the staging file to go") { !FileManager.default.fileExists(atPath: staging) }
        }
    }
}
