import AsyncHTTPClient
import Foundation
import GRDB
import LullCore
import LullTransfer
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The floor under lulld's small-file drain: the same durable work in one process with the same
/// libraries, and nothing else. Each job's start and end are committed to SQLite (WAL,
/// `synchronous = FULL`, commits shared); its file is fetched with AsyncHTTPClient, written,
/// synced (one `syncfs` for the files finishing together, an fsync for one alone), renamed into
/// place and its directory fsynced (shared), `concurrency` at once. No daemon, socket API,
/// scheduler, event stream, owner identities, validation, hashing or resume points: what lulld
/// could reach here if all of its own work cost nothing.
///
/// `Slot.untilDurable` is lulld's way: a job holds its place among the `concurrency` until its
/// end is committed. `Slot.untilWritten` frees the place once the file is written, and the sync,
/// rename and commit follow outside it: every end is still committed only after its file is
/// durable, but the syncs are shared by many more files. lulld has no such stage.
enum DrainFloor {
    enum Slot {
        case untilDurable
        case untilWritten
    }

    /// Seconds from the jobs' insertion to the last committed end, and this process's CPU seconds.
    static func run(
        _ urls: [String],
        into directory: URL,
        concurrency: Int,
        slot: Slot = .untilDurable
    ) throws -> (Double, Double) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        defer {
            try? client.syncShutdown()
            try? pool.syncShutdownGracefully()
            try? group.syncShutdownGracefully()
        }
        let outcome = Mutex<Result<(Double, Double), any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let figures = try await drain(
                    urls,
                    into: directory,
                    concurrency: concurrency,
                    slot: slot,
                    client: client,
                    pool: pool
                )
                outcome.withLock { $0 = .success(figures) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    private static func drain(
        _ urls: [String],
        into directory: URL,
        concurrency: Int,
        slot: Slot,
        client: HTTPClient,
        pool: NIOThreadPool
    ) async throws -> (Double, Double) {
        // Beside the files (not among them, as lulld's store is not), fresh for each drain.
        let path = directory.path + ".sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let database = try DatabaseQueue(path: path)
        try await database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "CREATE TABLE jobs (id INTEGER PRIMARY KEY, url TEXT NOT NULL, state TEXT NOT NULL)")
        }
        let failures = Atomic<Int>(0)
        let commits = SharedSyncs<Int, (Int, String)> { _, batch in
            do {
                try await pool.runIfActive {
                    try database.write { db in
                        for (id, state) in batch {
                            try db.execute(sql: "UPDATE jobs SET state = ? WHERE id = ?", arguments: [state, id])
                        }
                    }
                }
            } catch { failures.add(batch.count, ordering: .relaxed) }
            return []
        }
        // The file work is lulld's own (FileSyncs, DirectorySyncs), as this process's user: no
        // identity is taken on.
        let files = FileAccess(pool: pool)
        let owner = OwnerID(geteuid())
        let device: UInt64 = {
            var info = stat()
            return stat(directory.path, &info) == 0 ? UInt64(info.st_dev) : 0
        }()
        let cpuBefore = ProcessCPU.seconds(of: getpid())
        let start = ContinuousClock.now
        try await database.write { db in
            for (index, url) in urls.enumerated() {
                try db.execute(sql: "INSERT INTO jobs VALUES (?, ?, 'queued')", arguments: [index, url])
            }
        }
        let finishing = Mutex<[Task<Void, Never>]>([])
        let fetch: @Sendable (Int) async throws -> Void = { index in
            try? await commits.sync((index, "running"), under: 0)
            let response = try await client.execute(HTTPClientRequest(url: urls[index]), timeout: .seconds(60))
            guard response.status == .ok else { throw BenchError("floor: \(urls[index]) answered \(response.status)") }
            let body = try await response.body.collect(upTo: 64 << 20)
            let staging = directory.appendingPathComponent(".f\(index).part").path
            let descriptor = try await pool.runIfActive { () -> CInt in
                let descriptor = open(staging, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                guard descriptor >= 0 else { throw BenchError("floor: cannot create \(staging)") }
                let written = body.withUnsafeReadableBytes { write(descriptor, $0.baseAddress, $0.count) }
                guard written == body.readableBytes else {
                    close(descriptor)
                    throw BenchError("floor: short write to \(staging)")
                }
                return descriptor
            }
            let finish: @Sendable () async -> Void = {
                do {
                    try await files.fileSyncs.syncAndClose(
                        descriptor,
                        path: staging,
                        mode: nil,
                        device: device,
                        owner: owner,
                        files: files
                    )
                    try await files.directorySyncs.rename(
                        staging,
                        to: directory.appendingPathComponent("f\(index)").path,
                        in: directory.path,
                        as: owner,
                        files: files
                    )
                } catch { failures.add(1, ordering: .relaxed) }
                try? await commits.sync((index, "succeeded"), under: 0)
            }
            switch slot {
            case .untilDurable: await finish()
            case .untilWritten: finishing.withLock { $0.append(Task { await finish() }) }
            }
        }
        // Files written but not yet synced stay open, up to all of them with `.untilWritten`.
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                var next = 0
                while next < min(concurrency, urls.count) {
                    let index = next
                    tasks.addTask { try await fetch(index) }
                    next += 1
                }
                while try await tasks.next() != nil, next < urls.count {
                    let index = next
                    tasks.addTask { try await fetch(index) }
                    next += 1
                }
                try await tasks.waitForAll()
            }
        } catch {
            // What is finishing outside the slots ends before the pool and the client shut down.
            for task in finishing.withLock({ $0 }) { await task.value }
            throw error
        }
        for task in finishing.withLock({ $0 }) { await task.value }
        let seconds = (ContinuousClock.now - start).timeInterval
        let cpu = ProcessCPU.seconds(of: getpid()) - cpuBefore
        guard failures.load(ordering: .relaxed) == 0 else {
            throw BenchError("floor: \(failures.load(ordering: .relaxed)) writes, syncs or renames failed")
        }
        return (seconds, cpu)
    }
}
