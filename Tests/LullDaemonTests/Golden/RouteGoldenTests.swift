import Foundation
import LullAPI
import LullTestSupport
import NIOHTTP1
import Testing

/// What the routes answer about the jobs of the stored-store fixture, byte for byte (see
/// `WireGoldenTests` for the rules): `GET /v1/jobs/{id}` of finished and paused jobs (whose
/// answers depend on no sensor), a listing, an event page and a 404, asked in-process by the
/// jobs' owner. Nothing runs (`max_concurrent = 0`), so the answers stay put.
@Suite struct RouteGoldenTests {
    @Test func storedJobsAreAnsweredAsRecorded() async throws {
        try await withTemporaryDirectory("route-golden") { directory in
            _ = try StoreFixture.copy(into: directory + "/state")
            let daemon = try await InProcessDaemon.start(config: holdEverything, in: directory)
            do {
                try await Self.check(daemon)
                await daemon.stop()
            } catch {
                await daemon.stop()
                throw error
            }
        }
    }

    static func check(_ daemon: InProcessDaemon) async throws {
        let owner = UInt32(1000)
        // Target, golden, status, and the objects whose member order JSONEncoder chose.
        let cases: [(String, String, HTTPResponseStatus, [[String]])] = [
            ("/v1/jobs/3", "route-job-3-succeeded.json", .ok, [["result"]]),
            ("/v1/jobs/5", "route-job-5-failed.json", .ok, [["result"]]),
            ("/v1/jobs/6", "route-job-6-succeeded.json", .ok, [["result"]]),
            ("/v1/jobs/7", "route-job-7-paused.json", .ok, []),
            ("/v1/jobs?state=succeeded", "route-list-succeeded.json", .ok, [["jobs", "result"]]),
            ("/v1/events?after=0&limit=24", "route-events-page.json", .ok, [[]]),
            ("/v1/jobs/99", "route-job-99-not-found.json", .notFound, [[]]),
        ]
        for (target, name, status, unordered) in cases {
            let response = await daemon.handle(.GET, target, headers: [("accept", "application/json")], uid: owner)
            #expect(response.status == status, "\(target): \(response.text)")
            #expect(response.contentType == "application/json", "\(target)")
            let body = try JSONMemberOrder.sorting(response.body, under: unordered)
            let outcome = try WireGoldenTests.goldens.compare(body + [0x0A], with: name)
            #expect(outcome.isSuccess, "\(outcome)")
        }
    }
}
