import Foundation
import LullCore
import LullStore
import Testing

/// A page of jobs or events stops at `StorePage.byteBudget` of stored rows, not only at its
/// limit, so one answer's memory is bounded however large the rows: ten succeeded jobs with a
/// megabyte of output tail each come in pages of a few, every one of them once.
@Suite struct StorePageBudgetTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("lull-page-\(UUID().uuidString).sqlite")
        .path

    func storeWithLargeResults(_ count: Int) async throws -> SQLiteJobStore {
        let store = try SQLiteJobStore(path: path)
        let jobs = try await store.insert(
            (1...count).map { n in
                NewJob(owner: OwnerID(7), spec: JobSpec(.run(RunJob(argv: ["job\(n)"]))), createdAt: Date())
            }
        )
        let tail = String(repeating: "x", count: 1 << 20)
        for job in jobs {
            let now = Date()
            _ = try await store.apply(
                JobUpdate(id: job.id, from: [.queued], to: .running, event: .started, time: now, countsAsAttempt: true)
            )
            _ = try await store.apply(
                JobUpdate(
                    id: job.id,
                    from: [.running],
                    to: .succeeded,
                    event: .succeeded,
                    time: now,
                    result: JobResult(outputTail: tail)
                )
            )
        }
        return store
    }

    @Test func aListPageStopsAtTheByteBudgetAndTheNextGoesOn() async throws {
        let store = try await storeWithLargeResults(10)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var seen: [Int64] = []
        var after: JobID?
        var pages = 0
        while pages < 20 {
            let page = try await store.list(JobFilter(owner: nil, after: after, limit: 1000))
            pages += 1
            let bytes = page.items.reduce(0) { $0 + ($1.job?.result?.outputTail?.utf8.count ?? 0) }
            // The budget, plus the one row that reached it.
            #expect(bytes <= StorePage<Job>.byteBudget + (1 << 20), "a page of \(bytes) bytes")
            seen += page.items.map(\.id.rawValue)
            guard page.cutShort, let last = page.items.last else { break }
            after = last.id
        }
        #expect(seen == Array(1...10), "\(seen)")
        #expect(pages >= 3, "ten 1 MiB rows in pages of 4 MiB")
    }

    @Test func anEventPageStopsAtTheByteBudgetAndTheNextGoesOn() async throws {
        let store = try await storeWithLargeResults(10)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var succeeded: [Int64] = []
        var after: Int64 = 0
        var pages = 0
        while pages < 40 {
            let page = try await store.events(after: after, owner: OwnerID(7), limit: 1000)
            pages += 1
            succeeded += page.items.filter { $0.type == .succeeded }.map(\.jobID.rawValue)
            guard let last = page.items.last else { break }
            #expect(page.cutShort || page.items.count < 1000)
            after = last.seq
            if !page.cutShort { break }
        }
        #expect(succeeded == Array(1...10), "\(succeeded)")
        #expect(pages >= 3)
    }

    /// Small rows are not cut: the limit decides.
    @Test func smallRowsFillThePageToItsLimit() async throws {
        let store = try SQLiteJobStore(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await store.insert(
            (1...300).map { n in
                NewJob(owner: OwnerID(7), spec: JobSpec(.run(RunJob(argv: ["job\(n)"]))), createdAt: Date())
            }
        )
        let page = try await store.list(JobFilter(owner: nil, limit: 250))
        #expect(page.items.count == 250 && !page.cutShort)
        let events = try await store.events(after: 0, owner: nil, limit: 250)
        #expect(events.items.count == 250 && !events.cutShort)
    }
}
