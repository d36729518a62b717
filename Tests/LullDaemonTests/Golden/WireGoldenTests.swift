import Foundation
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Testing

/// The wire JSON of jobs of every kind, held byte for byte against files recorded from the code
/// before the job model's refactor (issue 23): submissions, job views, events, the store's rows.
/// Where today's output has no fixed member order (JSONEncoder's objects, header dictionaries),
/// those objects are compared in key order; everything else is compared as written.
/// Record again only on purpose: `LULL_RECORD_GOLDENS=1`.
@Suite struct WireGoldenTests {
    static let goldens = GoldenFiles()

    static func expectGolden(
        _ bytes: some Collection<UInt8>,
        _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let outcome = try goldens.compare(bytes, with: name)
        #expect(outcome.isSuccess, "\(outcome)", sourceLocation: sourceLocation)
    }

    /// (a) What a client sends: each submission decoded and encoded again as `lullctl` and
    /// `LullClient` encode it (keys sorted: their JSONEncoder's order changes per process).
    @Test func submissionsRoundTripAsRecorded() throws {
        for (name, json) in GoldenJobs.submissions {
            let submission = try WireDecoding.decode(JobSubmission.self, from: Data(json.utf8))
            let encoded = try WireJSON.encoder(sortedKeys: true).encode(submission)
            try Self.expectGolden(encoded + [0x0A], "submission-\(name).json")
        }
    }

    /// (b) `GET /v1/jobs/{id}`, (c) the event log, (d) the store's rows, after `GoldenHistory`.
    @Test func viewsEventsAndStoredRowsAsRecorded() async throws {
        try await withTemporaryDirectory("golden") { directory in
            try await Self.checkHistory(storePath: directory + "/lull.sqlite")
        }
    }

    static func checkHistory(storePath path: String) async throws {
        let store = try SQLiteJobStore(path: path)
        try await GoldenHistory.write(into: store)

        let names = GoldenJobs.submissions.map(\.name) + ["fetch-periodic-next"]
        var views: [JobView] = []
        for (index, name) in names.enumerated() {
            let job = try #require(try await store.job(JobID(Int64(index + 1))))
            // A queued job's view carries the reasons it waits (the dispatcher's, fixed here).
            let view = JobView(job, waitingFor: job.state == .queued ? GoldenHistory.waitingReasons : nil)
            views.append(view)
            let written = try JSONMemberOrder.sorting(try view.jsonBytes(), under: [["result"]])
            try expectGolden(written + [0x0A], "view-\(index + 1)-\(name)-\(job.state.rawValue).json")
        }
        let list = try JSONMemberOrder.sorting(
            try JobListView(jobs: views, nextAfter: 9).jsonBytes(),
            under: [["jobs", "result"]]
        )
        try expectGolden(list + [0x0A], "job-list.json")

        let events = try await store.events(after: 0, owner: nil, limit: 1000).items
        let encoder = WireJSON.encoder(sortedKeys: true)
        var lines: [UInt8] = []
        for event in events { lines += try encoder.encode(EventView(event)) + [0x0A] }
        try expectGolden(lines, "events.jsonl")

        try expectGolden(Array(try StoreRows.text(of: path).utf8), "store-rows.txt")
    }

    /// The comparison's one liberty, sorting, must change nothing else.
    @Test func memberOrderingKeepsEveryOtherByte() throws {
        let text = #"{"b":1.50,"a":[{"z":"\"x\\","y":null}],"c":{"k":true,"j":-0e3}}"#
        #expect(try JSONMemberOrder.sorting(Array(text.utf8), under: []) == Array(text.utf8))
        #expect(
            try JSONMemberOrder.sorting(Array(text.utf8), under: [[]])
                == Array(
                    #"{"a":[{"y":null,"z":"\"x\\"}],"b":1.50,"c":{"j":-0e3,"k":true}}"#.utf8
                )
        )
        #expect(
            try JSONMemberOrder.sorting(Array(text.utf8), under: [["c"]])
                == Array(
                    #"{"b":1.50,"a":[{"z":"\"x\\","y":null}],"c":{"j":-0e3,"k":true}}"#.utf8
                )
        )
        #expect(throws: JSONMemberOrder.Malformed.self) {
            try JSONMemberOrder.sorting(Array(#"{"a": 1}"#.utf8), under: [])
        }
    }
}
