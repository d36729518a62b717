import Foundation
import LullAPI
import LullCore
import LullStore
import LullTestSupport
import Testing

/// `lullctl top`'s RECENT FAILURES are the jobs that failed last, however long the history.
@Suite struct TopFailuresTests {
    @Test func theLatestFailuresOfALongHistoryAreShownNewestFirst() async throws {
        let daemon = try DaemonProcess(config: holdEverything)
        defer { daemon.remove() }
        // More failed jobs than ten pages of the job list (what top used to read), written with
        // the store's own code before the daemon starts. Job 1, the oldest, fails last of all.
        let count = 10_500
        try FileManager.default.createDirectory(
            atPath: daemon.stateDirectory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let store = try SQLiteJobStore(path: daemon.stateDirectory + "/lull.sqlite")
        let spec = JobSpec(.fetch(FetchJob(url: "http://127.0.0.1:9/gone", destination: "/tmp/lull-top-failures/gone")))
        let start = Date().addingTimeInterval(-3_600)
        var ids: [JobID] = []
        for first in stride(from: 0, to: count, by: 1_000) {
            let batch = (first..<min(count, first + 1_000)).map { _ in
                NewJob(owner: OwnerID(getuid()), spec: spec, createdAt: start)
            }
            ids += try await store.insert(batch).map(\.id)
        }
        @Sendable func fail(_ id: JobID, at time: Date) async throws {
            let update = JobUpdate(
                id: id,
                from: [.queued],
                to: .failed,
                event: .failed,
                time: time,
                failure: JobFailure(code: "http_404", message: "server answered 404 Not Found", retryable: false)
            )
            guard case .applied = try await store.apply(update) else {
                Issue.record("job \(id) did not fail")
                return
            }
        }
        // The bulk together (the store commits them in groups), then the last few one by one, in order.
        let bulk = ids[1..<(count - 4)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, id) in bulk.enumerated() {
                if index >= 64 { try await group.next() }
                group.addTask { try await fail(id, at: start.addingTimeInterval(60)) }
            }
            try await group.waitForAll()
        }
        for (offset, id) in ids.suffix(4).enumerated() {
            try await fail(id, at: start.addingTimeInterval(120 + Double(offset)))
        }
        try await fail(ids[0], at: start.addingTimeInterval(180))

        try daemon.start()
        let top = try CommandRunner.run(
            DaemonProcess.binary("lullctl"),
            ["top", "--once", "--socket", daemon.socketPath]
        )
        #expect(top.status == 0, "\(top.stderr)")
        let lines = top.stdout.split(separator: "\n")
        let heading = try #require(lines.firstIndex(of: "RECENT FAILURES"), "\(top.stdout)")
        let shown = lines[(heading + 1)...].prefix(5).compactMap { Int64($0.split(separator: " ").first ?? "") }
        let newest = [ids[0]] + ids.suffix(4).reversed()
        #expect(shown == newest.map(\.rawValue), "\(top.stdout)")
    }
}
