import Foundation
import Testing

@testable import LullTransfer

#if canImport(Glibc)
import Glibc
#endif

/// The records that let a restarted lulld end the commands a crashed one left running.
@Suite struct LeftoverGroupsTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "lull-groups-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// `sleep 60` as the leader of a process group of its own, as lulld starts commands.
    func leader() throws -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("60"), nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sleep", nil, &attributes, argv, environ)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        return pid
    }

    /// Reaps `pid`; the signal that ended it, if one did.
    func reap(_ pid: Int32) -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, 0) == pid else { return nil }
        let signal = status & 0x7F
        return signal != 0 && signal != 0x7F ? signal : nil
    }

    func files(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// The records, one line per slot, blank ones dropped.
    func records(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func slotsAreReusedAndBlankedInOneFile() throws {
        let path = directory + "/running-groups"
        let groups = LeftoverGroups(path: path)
        let (first, second, third) = (try leader(), try leader(), try leader())
        defer {
            for pid in [first, second, third] {
                kill(pid, SIGKILL)
                _ = reap(pid)
            }
        }
        #expect(groups.record(first) == 0)
        #expect(groups.record(second) == 1)
        groups.clear(0)
        #expect(try records(path) == ["", "\(second) \(LeftoverGroups.startTime(of: second)!)"])
        #expect(groups.record(third) == 0, "the lowest free slot")
        #expect(files(directory) == ["running-groups"])
        #expect(
            try records(path) == [
                "\(third) \(LeftoverGroups.startTime(of: third)!)",
                "\(second) \(LeftoverGroups.startTime(of: second)!)",
            ]
        )
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == 2 * LeftoverGroups.slotSize)
    }

    @Test func startUpEndsWhatACrashedDaemonLeftAndNothingElse() throws {
        let path = directory + "/running-groups"
        let left = try leader()
        let legacy = try leader()
        let bystander = try leader()
        defer {
            kill(bystander, SIGKILL)
            _ = reap(bystander)
        }
        let crashed = LeftoverGroups(path: path)
        #expect(crashed.record(left) == 0)
        // A pid reused since: the recorded start time is not the running process's.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\(bystander) 1\n".utf8))
        try handle.close()
        // An older lulld's record beside the logs.
        let legacyRecord = "\(legacy) \(LeftoverGroups.startTime(of: legacy)!)\n"
        try legacyRecord.write(toFile: directory + "/7.group", atomically: false, encoding: .utf8)

        // A new instance, as a restarted lulld has.
        let ended = LeftoverGroups(path: path).endAll()
        #expect(Set(ended) == [left, legacy])
        #expect(reap(left) == SIGKILL)
        #expect(reap(legacy) == SIGKILL)
        #expect(kill(bystander, 0) == 0, "a process that only shares a recorded pid is left alone")
        #expect(try records(path).isEmpty)
        #expect(files(directory) == ["running-groups"])
    }
}
