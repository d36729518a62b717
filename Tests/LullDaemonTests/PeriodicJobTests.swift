import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// Periodic jobs: each occurrence that ends creates the next one, in the same transaction, with
/// its own flex window; an adaptive fetch that finds nothing new waits longer next time.
@Suite struct PeriodicJobTests {
    @Test func eachOccurrenceQueuesTheNextAndNoNewDataStretchesThePeriod() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.route("/feed", .init(body: Array("feed v1\n".utf8), etag: "\"v1\""))
        server.route("/news", .init(body: Array("news\n".utf8), etag: "\"n1\""))
        try await withDaemon { daemon, client in
            let feed = daemon.directory.appendingPathComponent("feed").path
            // A first fetch leaves validators behind, so the periodic one gets a 304.
            let first = try await client.submit(
                JobSubmission(kind: .fetch, url: server.url("/feed"), destination: feed)
            )
            #expect(try await awaitJob(first.id, in: [.succeeded, .failed], client: client).state == .succeeded)

            let schedule = PeriodicSchedule(every: 3600, flex: 600, maxEvery: 4 * 3600)
            let started = Date()
            let periodic = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/feed"),
                    destination: feed,
                    label: "feed",
                    periodic: schedule
                )
            )
            let done = try await awaitJob(periodic.id, in: [.succeeded, .failed], client: client)
            #expect(done.result?.notModified == true)

            let queued = try await client.list(state: "queued", label: "feed").jobs
            let next = try #require(queued.first, "the next occurrence is queued")
            #expect(queued.count == 1)
            #expect(next.id > periodic.id && next.periodic == schedule)
            #expect(next.periodSeconds == 7200, "no new data doubles the period")
            let deadline = try #require(next.deadline)
            let notBefore = try #require(next.notBefore)
            #expect(abs(deadline.timeIntervalSince(started) - 7200) < 60)
            #expect(abs(deadline.timeIntervalSince(notBefore) - 600) < 1, "the flex window")
            #expect(try await client.explain(next.id).reasons.map(\.code) == ["not_before"])
            let events = try await client.events(after: 0).events.filter {
                $0.jobId == periodic.id && $0.type == .succeeded
            }
            #expect(events.first?.message?.contains("stretched to 7200") == true, "\(events.map(\.message))")

            // New data keeps the base period.
            let news = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/news"),
                    destination: daemon.directory.appendingPathComponent("news").path,
                    label: "news",
                    periodic: schedule
                )
            )
            #expect(try await awaitJob(news.id, in: [.succeeded, .failed], client: client).result?.notModified != true)
            let nextNews = try #require(try await client.list(state: "queued", label: "news").jobs.first)
            #expect(nextNews.periodSeconds == 3600)

            // Cancelling an occurrence ends the series.
            _ = try await client.cancel(next.id)
            #expect(try await client.list(state: "queued", label: "feed").jobs.isEmpty)
        }
    }

    /// A flex window as wide as the period: the second occurrence may run at once (its window
    /// opens as the first ends), but the third waits for its own period. Measured from each end
    /// alone, every window opened as the last run ended, and the series ran back to back.
    @Test func aWindowAsWideAsThePeriodRunsOncePerPeriod() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { await server.stop() } }
        server.serve("/tick", Array("tick\n".utf8))
        try await withDaemon { daemon, client in
            let first = try await client.submit(
                JobSubmission(
                    kind: .fetch,
                    url: server.url("/tick"),
                    destination: daemon.directory.appendingPathComponent("tick").path,
                    label: "tick",
                    periodic: PeriodicSchedule(every: 900, flex: 900)
                )
            )
            #expect(try await awaitJob(first.id, in: [.succeeded, .failed], client: client).state == .succeeded)
            let second = try #require(try await client.list(label: "tick").jobs.first { $0.id > first.id })
            let secondDone = try await awaitJob(second.id, in: [.succeeded, .failed], client: client)
            #expect(secondDone.state == .succeeded)
            let third = try #require(
                try await client.list(state: "queued", label: "tick").jobs.first,
                "the third occurrence waits"
            )
            let notBefore = try #require(third.notBefore)
            let secondDue = try #require(second.deadline)
            #expect(
                notBefore >= secondDue.addingTimeInterval(-1),
                "the third window opens at the second's due time, not at its end"
            )
            #expect(notBefore.timeIntervalSinceNow > 800)
            #expect(server.requests.filter { $0.uri == "/tick" }.count == 2)
        }
    }

    @Test func badSchedulesAreRefusedNamingTheField() async throws {
        try await withDaemon(config: holdEverything) { daemon, _ in
            let cases: [(String, String)] = [
                (#"{"every_seconds": 60}"#, "periodic.every_seconds"),
                (#"{"every_seconds": 3600, "flex_seconds": 7200}"#, "periodic.flex_seconds"),
                (#"{"every_seconds": 3600, "max_every_seconds": 60}"#, "periodic.max_every_seconds"),
                (#"{"every_seconds": 3600, "evry": 1}"#, "periodic.evry"),
            ]
            for (periodic, field) in cases {
                let body =
                    #"{"kind":"fetch","url":"http://127.0.0.1:9/x","destination":"/tmp/lull-p","periodic":\#(periodic)}"#
                let (status, text) = try curl(daemon.socketPath, "POST", "/v1/jobs", body: Data(body.utf8))
                #expect(status == 400, "\(periodic): \(text)")
                #expect(try apiError(text).field == field, "\(text)")
            }
        }
    }
}
