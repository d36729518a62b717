import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// A queue of small fetches, 16 at once (what `lull-bench --only drain` measures): a file that
/// arrives within the first progress and checkpoint interval is written once, as succeeded, and
/// whoever sees its `succeeded` event finds the job succeeded in the store and the file in place.
@Suite struct SmallFileDrainTests {
    @Test func eachSucceededEventFindsItsJobCommittedAndItsFileInPlace() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        let count = 200
        let content = TestHTTPServer.bytes(count: 16 << 10, seed: 26)
        // A strong validator, so every fetch could resume: none needs a checkpoint all the same.
        for index in 0..<count {
            server.route("/f\(index)", .init(body: content, etag: "\"v\(index)\""))
        }
        let config = concurrencyConfig(16, then: "\n[transfers]\ncheckpoint_interval = 60\nprogress_interval = 60")
        try await withDaemon(config: config) { daemon, client in
            let directory = daemon.directory.appendingPathComponent("drain")
            let cursor = try await client.status().lastEventSeq ?? 0
            let jobs = try await submitFetches(count, from: server, into: directory, client: client)
            let destinations = Dictionary(uniqueKeysWithValues: jobs.map { ($0.id, $0.destination ?? "") })
            let expected = TestHTTPServer.sha256(content)
            let ids = Set(jobs.map(\.id))
            let left = try await withTimeout(.seconds(120), "\(count) small fetches to succeed") {
                var left = ids
                for try await event in client.followEvents(after: cursor) where left.contains(event.jobId) {
                    #expect(event.type != .failed, "job \(event.jobId) failed: \(String(describing: event.error))")
                    guard event.type == .succeeded else { continue }
                    // Read the moment the event arrives: the state change was committed first,
                    // and the file was synced and renamed into place before that.
                    let job = try await client.job(event.jobId)
                    #expect(job.state == .succeeded)
                    #expect(job.result?.sha256 == expected)
                    let path = try #require(destinations[event.jobId])
                    #expect(FileManager.default.contents(atPath: path) == Data(content), "\(path) is in place")
                    left.remove(event.jobId)
                    if left.isEmpty { break }
                }
                return left
            }
            #expect(left.isEmpty)
            // Nothing but the files: every staging file was renamed.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(names.count == count)
            #expect(names.allSatisfy { !$0.hasPrefix(".") })
            // Three events a job: no checkpoint or progress write for a file that came whole
            // within the first interval.
            let events = try await client.events(after: cursor, limit: 1000).events
            let types = Dictionary(grouping: events.filter { ids.contains($0.jobId) }, by: \.type)
                .mapValues(\.count)
            #expect(types == [.submitted: count, .started: count, .succeeded: count])
        }
    }
}
