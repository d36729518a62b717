import Foundation
import LullCore
import Testing

@testable import LullStore

/// Progress reports commit without waiting for the disk; everything else still waits, and the
/// event numbers a power cut could take back are never given again.
@Suite struct UnsyncedReportsStoreTests {
    let directory: URL
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lull-unsynced-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var path: String { directory.appendingPathComponent("lull.sqlite").path }

    func runningJob(in store: SQLiteJobStore) async throws -> JobID {
        let job = try await store.insert([
            NewJob(owner: OwnerID(1000), spec: JobSpec(.run(RunJob(argv: ["sleep", "9"]))), createdAt: t0)
        ])[0]
        _ = try await store.apply(
            JobUpdate(id: job.id, from: [.queued], to: .running, event: .started, time: t0, countsAsAttempt: true)
        )
        return job.id
    }

    func report(_ id: JobID, _ bytes: Int64) -> JobUpdate {
        JobUpdate(
            id: id,
            from: [.running],
            to: .running,
            event: .progress,
            time: t0,
            progress: TransferProgress(bytesDone: bytes, bytesTotal: nil)
        )
    }

    @Test func onlyProgressReportsSkipTheSyncAndTheWriterGoesBackToFull() async throws {
        let store = try SQLiteJobStore(path: path)
        let id = try await runningJob(in: store)
        #expect(store.unsyncedCommitCount == 0, "a submission and a start are synced")
        for bytes in 1...3 { _ = try await store.apply(report(id, Int64(bytes))) }
        #expect(store.unsyncedCommitCount == 3)
        #expect(try store.synchronousLevel == 2, "the writer is back at FULL after an unsynced commit")
        #expect(try await store.job(id)?.progress?.bytesDone == 3)

        var resumePoint = report(id, 4)
        resumePoint.resume = ResumeState(offset: 4)
        _ = try await store.apply(resumePoint)
        _ = try await store.apply(JobUpdate(id: id, from: [.running], to: .succeeded, event: .succeeded, time: t0))
        #expect(store.unsyncedCommitCount == 3, "a resume point and an end are synced")
    }

    @Test func atMostTheLimitOfEventsWaitsForTheNextSync() async throws {
        let store = try SQLiteJobStore(path: path)
        let id = try await runningJob(in: store)
        let limit = GroupCommitter.unsyncedEventLimit
        for bytes in 1...(limit + 1) { _ = try await store.apply(report(id, Int64(bytes))) }
        #expect(store.unsyncedCommitCount == limit, "the report past the limit is synced, taking the others along")
        _ = try await store.apply(report(id, 0))
        #expect(store.unsyncedCommitCount == limit + 1, "and the count starts again")
    }

    /// A store closed without `closeCleanly` (a crash, a kill, a power cut: here the store is
    /// simply let go) numbers new events past the gap.
    @Test func aStoreLeftUncleanNumbersNewEventsPastAnyAPowerCutCanHaveTaken() async throws {
        var store: SQLiteJobStore? = try SQLiteJobStore(path: path)
        let id = try await runningJob(in: store!)
        _ = try await store!.apply(report(id, 1))
        let last = try await store!.latestEventSeq()
        store = nil
        let reopened = try SQLiteJobStore(path: path)
        let gap = Int64(GroupCommitter.unsyncedEventLimit)
        #expect(try await reopened.latestEventSeq() == last + gap)
        _ = try await reopened.apply(report(id, 2))
        let page = try await reopened.events(after: last, owner: nil, limit: 10)
        #expect(page.items.map(\.seq) == [last + gap + 1])
    }

    @Test func aCleanStopEmptiesTheLogAndTheNumberingGoesOn() async throws {
        var store: SQLiteJobStore? = try SQLiteJobStore(path: path)
        let id = try await runningJob(in: store!)
        _ = try await store!.apply(report(id, 1))
        let last = try await store!.latestEventSeq()
        #expect(await store!.closeCleanly())
        var info = stat()
        #expect(stat(path + "-wal", &info) == 0 && info.st_size == 0, "the log is emptied")
        store = nil
        var reopened: SQLiteJobStore? = try SQLiteJobStore(path: path)
        #expect(try await reopened!.latestEventSeq() == last)
        // The mark is spent at the open: a crash after it is an unclean stop again.
        reopened = nil
        #expect(
            try await SQLiteJobStore(path: path).latestEventSeq() == last + Int64(GroupCommitter.unsyncedEventLimit)
        )
    }

    @Test func aNewStoreStartsItsNumberingAtOne() async throws {
        let store = try SQLiteJobStore(path: path)
        _ = try await runningJob(in: store)
        #expect(try await store.events(after: 0, owner: nil, limit: 10).items.map(\.seq) == [1, 2])
    }
}
