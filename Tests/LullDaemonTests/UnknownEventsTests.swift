import Foundation
import GRDB
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Events a newer lulld wrote into a store of the same schema, whose type this lulld does not
/// know, after a downgrade: pages, streams and `lullctl events` leave them out and go on past
/// them. Before, the first page that held one failed, and every follower stopped there.
@Suite(.timeLimit(.minutes(2)))
struct UnknownEventsTests {
    @Test func pagesStreamsAndLullctlGoOnPastEventsTheyCannotName() async throws {
        let daemon = try DaemonProcess(config: "[limits]\nmax_concurrent = 0\n")
        defer { daemon.remove() }
        try daemon.start()
        let first = LullClient(socketPath: daemon.socketPath)
        var ids: [Int64] = []
        for _ in 0..<3 { ids.append(try await first.submit(JobSubmission(kind: .run, url: "", argv: ["true"])).id) }
        let seqs = try await first.events(after: 0).events.map(\.seq)
        let edited = [ids[0], ids[2]]
        await first.shutdown()
        #expect(seqs.count == 3)
        #expect(daemon.stop() == 0)

        // The first and the last event of the log become a kind of event this lulld never wrote.
        try await DatabaseQueue(path: daemon.stateDirectory + "/lull.sqlite").write { db in
            try db.execute(
                sql: "UPDATE events SET type = 'throttled' WHERE job_id IN (?, ?)",
                arguments: [edited[0], edited[1]]
            )
        }
        try daemon.start()
        let client = LullClient(socketPath: daemon.socketPath)
        defer { Task { await client.shutdown() } }

        // A page holds the one readable event, and its cursor is past the unreadable tail.
        let page = try await client.events(after: 0)
        #expect(page.events.map(\.seq) == [seqs[1]] && page.lastSeq == seqs[2], "\(page)")
        let tail = try await client.events(after: seqs[1])
        #expect(tail.events.isEmpty && tail.lastSeq == seqs[2], "\(tail)")

        let listed = try CommandRunner.run(DaemonProcess.binary("lullctl"), ["events", "--socket", daemon.socketPath])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").map { $0.split(separator: " ").first ?? "" } == ["\(seqs[1])"])

        // A follower gets the readable one, then the next event written, past the tail.
        let follower = Task {
            var seen: [Int64] = []
            for try await event in client.followEvents(after: 0) {
                seen.append(event.seq)
                if seen.count == 2 { break }
            }
            return seen
        }
        let later = try await client.submit(JobSubmission(kind: .run, url: "", argv: ["true"]))
        let seen = try await follower.value
        #expect(seen.first == seqs[1] && seen.count == 2 && seen[1] > seqs[2], "\(seen), job \(later.id)")
    }
}
