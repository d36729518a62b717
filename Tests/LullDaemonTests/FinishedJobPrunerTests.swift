import Foundation
import Logging
import LullCore
import LullStore
import LullTestSupport
import LullTransfer
import Testing

@testable import LullDaemon

/// The retention sweep on a virtual clock over a real store and real log files: jobs go once
/// they ended longer ago than the retention, run jobs' logs with them, in batches, and the loop
/// sweeps again each interval.
@Suite struct FinishedJobPrunerTests {
    static let day: TimeInterval = 86_400
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lull-prune-\(UUID().uuidString)")
    var logs: RunLogs { RunLogs(stateDirectory: directory.path) }

    func makeStore() throws -> SQLiteJobStore {
        try FileManager.default.createDirectory(atPath: logs.directory, withIntermediateDirectories: true)
        return try SQLiteJobStore(path: directory.appendingPathComponent("lull.sqlite").path)
    }

    /// A job that ended at `end`; a run job with a log file, as its attempt leaves one.
    func ended(_ store: SQLiteJobStore, _ payload: JobPayload, at end: Date) async throws -> JobID {
        let job = try await store.insert([NewJob(owner: OwnerID(7), spec: JobSpec(payload), createdAt: end)])[0]
        _ = try await store.apply(JobUpdate(id: job.id, from: [.queued], to: .running, event: .started, time: end))
        _ = try await store.apply(JobUpdate(id: job.id, from: [.running], to: .succeeded, event: .succeeded, time: end))
        if payload.kind == .run {
            #expect(FileManager.default.createFile(atPath: logs.path(of: job.id), contents: Data("out\n".utf8)))
        }
        return job.id
    }

    func pruner(_ store: SQLiteJobStore, _ time: ManualTime, keepDays: Double, batchSize: Int) -> FinishedJobPruner {
        FinishedJobPruner(
            store: store,
            keep: keepDays * Self.day,
            removeLog: { [logs] in logs.remove($0) },
            clock: time,
            sleeper: time,
            logger: Logger(label: "lull.test"),
            batchSize: batchSize
        )
    }

    @Test func oldJobsGoWithTheirLogsAndTheLoopSweepsEachInterval() async throws {
        let store = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let time = ManualTime()
        let now = time.now()
        // Five jobs past a 30-day retention (two batches of two and one), one 30 minutes short
        // of it, and a newer job, which stays as the id high-water mark.
        var old: [JobID] = []
        for n in 1...5 {
            let payload: JobPayload =
                n.isMultiple(of: 2)
                ? .run(RunJob(argv: ["true"])) : .fetch(FetchJob(url: "http://h/\(n)", destination: "/tmp/\(n)"))
            old.append(try await ended(store, payload, at: now.addingTimeInterval(-40 * Self.day)))
        }
        let almost = try await ended(
            store,
            .run(RunJob(argv: ["true"])),
            at: now.addingTimeInterval(-30 * Self.day + 1800)
        )
        let queued = try await store.insert([
            NewJob(owner: OwnerID(7), spec: JobSpec(.run(RunJob(argv: ["true"]))), createdAt: now)
        ])[0].id

        let pruner = pruner(store, time, keepDays: 30, batchSize: 2)
        #expect(await pruner.interval == .seconds(3600))
        await pruner.start()
        defer { Task { await pruner.stop() } }
        // Asleep again means a sweep is done.
        try await waitUntil("the first sweep") { time.sleeping == 1 }
        for id in old {
            #expect(try await store.job(id) == nil, "job \(id) is still there")
            #expect(!FileManager.default.fileExists(atPath: logs.path(of: id)))
        }
        #expect(try await store.job(almost) != nil)
        #expect(FileManager.default.fileExists(atPath: logs.path(of: almost)))

        time.advance(by: .seconds(3600))
        try await waitUntil("the second sweep") {
            guard time.sleeping == 1 else { return false }
            return try await store.job(almost) == nil
        }
        #expect(!FileManager.default.fileExists(atPath: logs.path(of: almost)))
        #expect(try await store.job(queued)?.state == .queued)
    }

    /// A reload's shorter retention applies from the next sweep; a short one sweeps more often.
    @Test func aNewRetentionAppliesFromTheNextSweep() async throws {
        let store = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let time = ManualTime()
        let twoDaysAgo = try await ended(
            store,
            .fetch(FetchJob(url: "http://h/1", destination: "/tmp/1")),
            at: time.now().addingTimeInterval(-2 * Self.day)
        )
        _ = try await store.insert([
            NewJob(owner: OwnerID(7), spec: JobSpec(.run(RunJob(argv: ["true"]))), createdAt: time.now())
        ])
        let pruner = pruner(store, time, keepDays: 30, batchSize: 500)
        #expect(await pruner.sweep() == 0)
        await pruner.update(keep: 1 * Self.day)
        #expect(await pruner.interval == .seconds(3600))
        #expect(await pruner.sweep() == 1)
        #expect(try await store.job(twoDaysAgo) == nil)
        await pruner.update(keep: 0.01 * Self.day)
        #expect(await pruner.interval == .seconds(86.4))
    }
}

/// `[limits] keep_finished_days`: its default, fractions of a day, and a refusal that names the
/// key and its range.
@Suite struct KeepFinishedConfigTests {
    @Test func keepFinishedDaysDefaultsToThirtyAndTakesFractions() throws {
        #expect(try ConfigLoader.parse("", file: "t.toml").keepFinished == 30 * 86_400)
        #expect(try ConfigLoader.parse("[limits]\nkeep_finished_days = 7\n", file: "t.toml").keepFinished == 7 * 86_400)
        #expect(
            try ConfigLoader.parse("[limits]\nkeep_finished_days = 0.5\n", file: "t.toml").keepFinished == 43_200
        )
    }

    @Test func aBadKeepFinishedDaysIsRefusedNamingTheKeyAndItsRange() {
        for (text, message) in [
            ("keep_finished_days = 0", "t.toml:2: limits.keep_finished_days: 0.0 is out of range 0.01...36500.0 days"),
            ("keep_finished_days = 36501", "limits.keep_finished_days: 36501.0 is out of range"),
            ("keep_finished_days = \"30d\"", "limits.keep_finished_days: expected a number (days)"),
            ("keep_finished = 30", "keep_finished_days"),
        ] {
            let refusal = ConfigLoader.refusal("[limits]\n\(text)\n")
            #expect(refusal?.contains(message) == true, "\(text): \(refusal ?? "accepted")")
        }
    }
}
