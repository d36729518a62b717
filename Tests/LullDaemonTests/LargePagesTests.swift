import Foundation
import LullAPI
import LullClient
import LullCore
import Testing

/// Jobs whose views are large (a megabyte of output tail each, which JSON may escape up to six
/// times over) come back in pages bounded in bytes rather than 1,000 at once: a list page
/// names where the next begins, and following the pages gives every job once.
@Suite struct LargePagesTests {
    @Test func aListOfLargeJobsComesInBoundedPages() async throws {
        try await withDaemon { _, client in
            var ids: [Int64] = []
            for _ in 0..<6 {
                let job = try await client.submit(
                    JobSubmission(
                        kind: .run,
                        url: "",
                        argv: ["sh", "-c", "head -c 1048576 /dev/zero | tr '\\0' x"],
                        workingDirectory: "/tmp",
                        outputTailBytes: 1 << 20
                    )
                )
                ids.append(job.id)
            }
            // Counted from the status: following the events would replay every large one.
            var finished = 0
            for _ in 0..<600 {
                let jobs = try await client.status().jobs
                finished = (jobs["succeeded"] ?? 0) + (jobs["failed"] ?? 0)
                if finished == ids.count { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await client.status().jobs["succeeded"] == ids.count)
            let listed = ContinuousClock.now
            var seen: [Int64] = []
            var after: Int64?
            var pages = 0
            repeat {
                let page = try await client.list(limit: 1000, after: after)
                pages += 1
                seen += page.jobs.map(\.id)
                after = page.nextAfter
            } while after != nil && pages < 10
            print("large pages: \(pages) pages in \(ContinuousClock.now - listed)")
            let first = try await client.job(ids[0])
            #expect(first.result?.outputTail?.utf8.count == 1 << 20)
            #expect(seen == ids, "\(seen)")
            #expect(pages >= 2, "six 1 MiB tails fit no 4 MiB page")
        }
    }
}
