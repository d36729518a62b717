import Foundation
import LullCore
import NIOPosix
import Synchronization
import Testing

@testable import LullTransfer

#if canImport(Glibc)
import Glibc
#endif

/// The durability of finished downloads, shared among the files that finish together: one
/// `syncfs` for a batch while little else is dirty, each file's fsync otherwise, and each file's
/// own failure reported to it alone.
@Suite struct FileSyncsTests {
    @Test func aBatchSharesOneFilesystemSyncOnlyWhileLittleElseIsDirty() {
        #expect(FileSyncs.plan(files: 1, dirtyBytes: 0) == .eachFile)
        #expect(FileSyncs.plan(files: 16, dirtyBytes: 0) == .wholeFilesystem)
        #expect(FileSyncs.plan(files: 16, dirtyBytes: FileSyncs.sharedSyncDirtyLimit) == .wholeFilesystem)
        #expect(FileSyncs.plan(files: 16, dirtyBytes: FileSyncs.sharedSyncDirtyLimit + 1) == .eachFile)
        #expect(FileSyncs.plan(files: 16, dirtyBytes: nil) == .eachFile)
    }

    @Test func dirtyBytesAreDirtyAndWritebackFromMeminfo() {
        let text = "MemTotal:       24576000 kB\nDirty:              1200 kB\nWriteback:            24 kB\n"
        #expect(KernelDataSync.dirtyBytes(meminfo: text) == Int64(1200 + 24) * 1024)
        #expect(KernelDataSync.dirtyBytes(meminfo: "MemTotal: 1 kB\nDirty: 5 kB\n") == nil)
        #expect(KernelDataSync().dirtyBytes() != nil, "this kernel's /proc/meminfo is read")
    }

    @Test func filesArrivingDuringASyncShareTheNextOne() async throws {
        let calls = HeldSyncCalls(dirtyBytes: 4096)
        try await withSyncs(calls) { syncs, files in
            let later = try await syncsBehindAHeldOne(syncs, files, calls, descriptors: Array(10..<15))
            calls.release()
            #expect(try await later().isEmpty)
            // The first file alone got its own fsync; the five that came meanwhile, one syncfs.
            let log = calls.syncs
            #expect(log.count == 2, "\(log)")
            #expect(log.first == .file(3))
            guard case .filesystem(let descriptor) = log.last else {
                Issue.record("the batch of five was not one syncfs: \(log)")
                return
            }
            #expect((10..<15).contains(descriptor))
            #expect(calls.closed == [3, 10, 11, 12, 13, 14], "each file closed once, after its sync")
            #expect(calls.modes == [3, 10, 11, 12, 13, 14], "each file given its mode before its sync")
            #expect(calls.dirtyReads == 1, "/proc/meminfo read for the batch of five, not for a file alone")
        }
    }

    @Test func muchElseDirtyMeansEachFileIsSyncedOnItsOwn() async throws {
        let calls = HeldSyncCalls(dirtyBytes: FileSyncs.sharedSyncDirtyLimit + 1)
        try await withSyncs(calls) { syncs, files in
            let later = try await syncsBehindAHeldOne(syncs, files, calls, descriptors: Array(10..<15))
            calls.release()
            #expect(try await later().isEmpty)
            #expect(Set(calls.syncs) == Set([3, 10, 11, 12, 13, 14].map(SyncCall.file)))
            #expect(calls.syncs.count == 6)
        }
    }

    @Test func aFailedFilesystemSyncFallsBackToEachFileAndEachGetsItsOwnFailure() async throws {
        let calls = HeldSyncCalls(dirtyBytes: 0, filesystemError: EIO, fileErrors: [12: EIO])
        try await withSyncs(calls) { syncs, files in
            let later = try await syncsBehindAHeldOne(syncs, files, calls, descriptors: Array(10..<15))
            calls.release()
            let failures = try await later()
            #expect(failures.count == 1)
            #expect(failures.first?.path == "/f12" && failures.first?.errno == EIO)
            #expect(failures.first?.operation == "fsync")
            #expect(calls.syncs.filter { $0 == .file(12) }.count == 1)
            #expect(calls.syncs.contains { if case .filesystem = $0 { true } else { false } })
            #expect(calls.closed == [3, 10, 11, 12, 13, 14], "the failed file is closed too")
        }
    }

    @Test func theKernelSyncsRealFilesAndGivesThemTheirMode() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("filesyncs-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        let files = FileAccess(pool: pool)
        let syncs = FileSyncs()
        let owner = OwnerID(geteuid())
        var descriptors: [CInt] = []
        for index in 0..<16 {
            let fd = open(directory.appendingPathComponent("f\(index)").path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            #expect(fd >= 0)
            #expect(write(fd, "file \(index)", 6) == 6)
            descriptors.append(fd)
        }
        var info = stat()
        #expect(fstat(descriptors[0], &info) == 0)
        let device = UInt64(info.st_dev)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, fd) in descriptors.enumerated() {
                group.addTask {
                    try await syncs.syncAndClose(
                        fd,
                        path: "f\(index)",
                        mode: FileMode(0o640),
                        device: device,
                        owner: owner,
                        files: files
                    )
                }
            }
            try await group.waitForAll()
        }
        for index in 0..<16 {
            #expect(stat(directory.appendingPathComponent("f\(index)").path, &info) == 0)
            #expect(info.st_mode & 0o7777 == 0o640)
        }
    }

    /// Starts a sync of descriptor 3 that the fake holds, then syncs of `descriptors` that queue
    /// behind it; returns a function awaiting the queued ones, giving the failures they threw.
    private func syncsBehindAHeldOne(
        _ syncs: FileSyncs,
        _ files: FileAccess,
        _ calls: HeldSyncCalls,
        descriptors: [CInt]
    ) async throws -> @Sendable () async throws -> [FileFailure] {
        let owner = OwnerID(geteuid())
        let sync: @Sendable (CInt) async throws(FileFailure) -> Void = { fd in
            try await syncs.syncAndClose(
                fd,
                path: "/f\(fd)",
                mode: .fetchDefault,
                device: 1,
                owner: owner,
                files: files
            )
        }
        let first = Task { try await sync(3) }
        try await until("the first sync is running") { calls.holding }
        let queued = Task {
            await withTaskGroup(of: FileFailure?.self) { group in
                for fd in descriptors {
                    group.addTask {
                        do {
                            try await sync(fd)
                            return nil
                        } catch { return error as? FileFailure }
                    }
                }
                var failures: [FileFailure] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
        }
        try await until("\(descriptors.count) syncs wait for the next one") {
            syncs.waitingCount(device: 1, owner: owner) == descriptors.count
        }
        return {
            try await first.value
            return await queued.value
        }
    }

    private func withSyncs(_ calls: HeldSyncCalls, _ body: (FileSyncs, FileAccess) async throws -> Void) async throws {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        try await body(FileSyncs(calls: calls), FileAccess(pool: pool))
    }

    /// Polls a condition another thread makes true, yielding between looks; fails after 10 s.
    private func until(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(description: what) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

enum SyncCall: Hashable {
    case file(CInt)
    case filesystem(CInt)
}

/// Records the calls; the first sync waits until the test releases it, so that others queue.
/// No real descriptor is touched: the numbers are the test's.
final class HeldSyncCalls: DataSyncCalls, Sendable {
    private struct State {
        var syncs: [SyncCall] = []
        var modes: [CInt] = []
        var closed: [CInt] = []
        var holding = false
        var dirtyReads = 0
    }

    private let state = Mutex(State())
    private let gate = DispatchSemaphore(value: 0)
    private let dirty: Int64
    private let filesystemError: CInt
    private let fileErrors: [CInt: CInt]

    init(dirtyBytes: Int64, filesystemError: CInt = 0, fileErrors: [CInt: CInt] = [:]) {
        dirty = dirtyBytes
        self.filesystemError = filesystemError
        self.fileErrors = fileErrors
    }

    var syncs: [SyncCall] { state.withLock { $0.syncs } }
    /// The descriptors given a mode and closed, each sorted.
    var modes: [CInt] { state.withLock { $0.modes.sorted() } }
    var closed: [CInt] { state.withLock { $0.closed.sorted() } }
    var holding: Bool { state.withLock { $0.holding } }
    var dirtyReads: Int { state.withLock { $0.dirtyReads } }

    func release() { gate.signal() }

    func setMode(_ descriptor: CInt, _ mode: FileMode) {
        state.withLock { state in
            // A mode after the file's sync would not be durable with it.
            if state.syncs.contains(.file(descriptor)) { Issue.record("mode of \(descriptor) set after its sync") }
            state.modes.append(descriptor)
        }
    }

    func close(_ descriptor: CInt) { state.withLock { $0.closed.append(descriptor) } }

    func syncFile(_ descriptor: CInt) -> CInt {
        record(.file(descriptor))
        return fileErrors[descriptor] ?? 0
    }

    func syncFilesystem(of descriptor: CInt) -> CInt {
        record(.filesystem(descriptor))
        return filesystemError
    }

    func dirtyBytes() -> Int64? {
        state.withLock { $0.dirtyReads += 1 }
        return dirty
    }

    private func record(_ call: SyncCall) {
        let first = state.withLock { state in
            state.syncs.append(call)
            guard state.syncs.count == 1 else { return false }
            state.holding = true
            return true
        }
        if first { gate.wait() }
    }
}
