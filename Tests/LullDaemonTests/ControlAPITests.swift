import Foundation
import LullAPI
import LullClient
import LullCore
import LullTestSupport
import Testing

/// The routes' answers, called in-process (`InProcessDaemon`): what the socket, the server's
/// request size cap and a restart add is in `ControlSocketTests`.
@Suite struct ControlAPITests {
    @Test func badInputGetsANamedErrorAndTheDaemonKeepsServing() async throws {
        try await withInProcessDaemon(config: holdEverything) { daemon, client in
            let cases: [(String, String, Int, String, String?)] = [
                ("malformed JSON", #"{"kind": "fetch", "url": "#, 400, "malformed_json", nil),
                ("missing url", #"{"kind":"fetch","destination":"/tmp/x"}"#, 400, "missing_field", "url"),
                (
                    "ftp URL", #"{"kind":"fetch","url":"ftp://127.0.0.1/f","destination":"/tmp/x"}"#, 400,
                    "invalid_value", "url"
                ),
                (
                    "relative destination", #"{"kind":"fetch","url":"http://127.0.0.1/f","destination":"x/y"}"#, 400,
                    "invalid_value", "destination"
                ),
                (
                    "unknown field",
                    #"{"kind":"fetch","url":"http://127.0.0.1/f","destination":"/tmp/x","priority":9}"#, 400,
                    "unknown_field", "priority"
                ),
            ]
            for (name, body, status, code, field) in cases {
                let (got, text) = await daemon.curl("POST", "/v1/jobs", body: Data(body.utf8))
                #expect(got == status, "\(name): \(text)")
                let error = try apiError(text)
                #expect(error.code == code, "\(name)")
                #expect(error.field == field, "\(name)")
                #expect(!error.message.isEmpty)
            }

            let (notFound, _) = await daemon.curl("GET", "/v1/nothing")
            #expect(notFound == 404)
            let (wrongMethod, _) = await daemon.curl("PUT", "/v1/jobs")
            #expect(wrongMethod == 405)
            let (badQuery, queryText) = await daemon.curl("GET", "/v1/jobs?stat=queued")
            #expect(badQuery == 400)
            #expect(try apiError(queryText).field == "stat")

            let status2 = try await client.status()
            #expect(status2.jobs["queued"] == 0, "no invalid submission may have been stored")
        }
    }

    @Test func doubledSlashesAreIgnoredAndQueryValuesStillDecoded() async throws {
        try await withInProcessDaemon(config: holdEverything) { daemon, client in
            for n in 0..<2 {
                _ = try await client.submit(
                    JobSubmission(
                        kind: .fetch,
                        url: "http://127.0.0.1:9/\(n)",
                        destination: "/tmp/lull-slash-\(n)",
                        label: n == 1 ? "a b+c" : nil
                    )
                )
            }
            // A leading "//" is what a URL parser takes for an authority ("v1" the host).
            let (status, statusText) = await daemon.curl("GET", "//v1//status")
            #expect(status == 200, "\(statusText)")
            #expect(try WireJSON.decoder().decode(StatusView.self, from: Data(statusText.utf8)).pid == daemon.pid)

            let (listed, listText) = await daemon.curl("GET", "/v1//jobs?limit=1")
            #expect(listed == 200, "\(listText)")
            #expect(
                try WireJSON.decoder().decode(JobListView.self, from: Data(listText.utf8)).jobs.count == 1,
                "\(listText)"
            )

            let (labelled, labelText) = await daemon.curl("GET", "//v1/jobs/?label=a%20b%2Bc&limit=5")
            #expect(labelled == 200, "\(labelText)")
            #expect(
                try WireJSON.decoder().decode(JobListView.self, from: Data(labelText.utf8)).jobs.map(\.label) == [
                    "a b+c"
                ],
                "\(labelText)"
            )

            let (badLimit, badText) = await daemon.curl("GET", "//v1/jobs?limit=%zz")
            #expect(badLimit == 400, "\(badText)")
            #expect(try apiError(badText).field == "limit")
        }
    }

    /// A key given twice could mean one job to a proxy in front of lulld (most parsers keep the
    /// last value) and another to lulld (JSONDecoder keeps the first): every JSON body refuses it.
    @Test func aKeyGivenTwiceIsRefusedOnEveryRouteThatTakesJSON() async throws {
        try await withInProcessDaemon(config: holdEverything) { daemon, client in
            let job = #""kind":"fetch","url":"http://127.0.0.1/f""#
            let cases: [(String, String, String)] = [
                ("/v1/jobs", #"{\#(job),"destination":"/tmp/a","destination":"/etc/passwd"}"#, "destination"),
                (
                    "/v1/jobs", #"{\#(job),"destination":"/tmp/a","retry":{"max_attempts":1,"max_attempts":9}}"#,
                    "retry.max_attempts"
                ),
                (
                    "/v1/jobs:batch",
                    #"{"jobs":[{\#(job),"destination":"/tmp/a"},{\#(job),"destination":"/tmp/b","destination":"/etc/b"}]}"#,
                    "jobs[1].destination"
                ),
                ("/v1/simulate", #"{"battery":80,"on_battery":true,"battery":5}"#, "battery"),
            ]
            for (path, body, field) in cases {
                let (status, text) = await daemon.curl("POST", path, body: Data(body.utf8))
                #expect(status == 400, "\(path) \(body): \(text)")
                let error = try apiError(text)
                #expect(error.code == "duplicate_field" && error.field == field, "\(path) \(body): \(text)")
                #expect(error.message == "duplicate key \"\(field)\" in the request body; give each key once")
            }
            #expect(try await client.status().jobs["queued"] == 0, "no job with a doubled key may have been stored")
            let (accepted, _) = await daemon.curl(
                "POST",
                "/v1/jobs",
                body: Data(#"{\#(job),"destination":"/tmp/a"}"#.utf8)
            )
            #expect(accepted == 201)
        }
    }

    @Test func pauseResumeAndCancelFollowTheRules() async throws {
        try await withInProcessDaemon(config: holdEverything) { daemon, client in
            let job = try await client.submit(
                JobSubmission(kind: .fetch, url: "http://127.0.0.1:9/x", destination: "/tmp/never")
            )
            #expect(try await client.pause(job.id).state == .paused)
            await #expect(throws: LullClientError.self) { try await client.pause(job.id) }
            #expect(try await client.resume(job.id).state == .queued)
            #expect(try await client.cancel(job.id).state == .cancelled)
            do {
                _ = try await client.resume(job.id)
                Issue.record("resuming a cancelled job succeeded")
            } catch LullClientError.api(let status, let detail) {
                #expect(status == 409)
                #expect(detail.code == "invalid_state")
            }
            let cancelled = try await client.list(state: "cancelled")
            #expect(cancelled.jobs.map(\.id) == [job.id])
            let types = try await client.events(after: 0).events.map(\.type)
            #expect(types == [.submitted, .paused, .resumed, .cancelled])
        }
    }

    @Test func batchSubmissionIsAllOrNothing() async throws {
        try await withInProcessDaemon(config: holdEverything) { _, client in
            let good = JobSubmission(kind: .fetch, url: "http://127.0.0.1/a", destination: "/tmp/a")
            let bad = JobSubmission(kind: .fetch, url: "gopher://x", destination: "/tmp/b")
            do {
                _ = try await client.submit(batch: [good, bad])
                Issue.record("a batch with an invalid job was accepted")
            } catch LullClientError.api(let status, let detail) {
                #expect(status == 400)
                #expect(detail.field == "jobs[1].url")
            }
            #expect(try await client.list().jobs.isEmpty)
            let jobs = try await client.submit(batch: Array(repeating: good, count: 50))
            #expect(jobs.count == 50)
            #expect(Set(jobs.map(\.id)).count == 50)
        }
    }
}
