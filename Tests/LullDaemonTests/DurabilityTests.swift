import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

@Suite struct DurabilityTests {
    /// 1,000 acknowledged submissions, kill -9, restart: all there, none twice.
    @Test func acknowledgedJobsSurviveKill9() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            let acknowledged = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        var ids: [Int64] = []
                        for n in stride(from: worker, to: 1000, by: 16) {
                            let job = try await client.submit(
                                JobSubmission(
                                    kind: .fetch,
                                    url: "http://127.0.0.1/\(n)",
                                    destination: "/tmp/lull-kill-\(n)",
                                    label: "kill9"
                                )
                            )
                            ids.append(job.id)
                        }
                        return ids
                    }
                }
                return try await group.reduce(into: [Int64]()) { $0 += $1 }
            }
            #expect(acknowledged.count == 1000)
            daemon.kill()
            try daemon.start()
            let stored = try await client.allJobs(label: "kill9").map(\.id)
            #expect(stored.count == 1000)
            #expect(Set(stored) == Set(acknowledged))
        }
    }

    @Test func interruptedJobsGoBackToTheQueue() async throws {
        // A server that never answers keeps the fetch running until the daemon is killed.
        let listener = try Socket.listenLoopback()
        defer { listener.close() }
        try await withDaemon { daemon, client in
            let job = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: "http://127.0.0.1:\(listener.port)/stall",
                    destination: daemon.directory.appendingPathComponent("s").path
                )
            )
            _ = try await awaitJob(job.id, in: [.running], client: client)
            daemon.kill()
            try daemon.start()
            let after = try await client.job(job.id)
            #expect(after.state == .queued || after.state == .running)
            let types = try await client.events(after: 0).events.filter { $0.jobId == job.id }.map(\.type)
            #expect(types.contains(.requeued))
            _ = try await client.cancel(job.id)
        }
    }

    /// `status.last_event_seq` is where the log ends, also right after a restart (it read 0
    /// until the next event, so a client following from there replayed the whole history).
    @Test func theEventCursorSurvivesARestart() async throws {
        try await withDaemon(config: holdEverything) { daemon, client in
            for n in 0..<3 {
                _ = try await client.submit(
                    JobSubmission(kind: .fetch, url: "http://127.0.0.1/\(n)", destination: "/tmp/lull-seq-\(n)")
                )
            }
            let before = try #require(try await client.status().lastEventSeq)
            #expect(before >= 3)
            #expect(daemon.stop() == 0)
            try daemon.start()
            #expect(try await client.status().lastEventSeq == before)
            #expect(try await client.events(after: before).events.isEmpty)
        }
    }
}
