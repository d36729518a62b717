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

    @Test func slotsAreReusedAndEmptiedNotDeleted() throws {
        let groups = LeftoverGroups(directory: directory + "/groups")
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
        #expect(try String(contentsOfFile: directory + "/groups/0", encoding: .utf8) == "")
        #expect(groups.record(third) == 0, "the lowest free slot")
        #expect(files(directory + "/groups") == ["0", "1"])
        let record = try String(contentsOfFile: directory + "/groups/0", encoding: .utf8)
        #expect(record == "\(third) \(LeftoverGroups.startTime(of: third)!)\n")
    }

    @Test func startUpEndsWhatACrashedDaemonLeftAndNothingElse() throws {
        let left = try leader()
        let legacy = try leader()
        let bystander = try leader()
        defer {
            kill(bystander, SIGKILL)
            _ = reap(bystander)
        }
        #expect(LeftoverGroups(directory: directory + "/groups").record(left) == 0)
        // A pid reused since: the recorded start time is not the running process's.
        try "\(bystander) 1\n".write(toFile: directory + "/groups/1", atomically: false, encoding: .utf8)
        // An older lulld's record beside the logs.
        let legacyRecord = "\(legacy) \(LeftoverGroups.startTime(of: legacy)!)\n"
        try legacyRecord.write(toFile: directory + "/7.group", atomically: false, encoding: .utf8)

        // A new instance, as a restarted lulld has.
        let ended = LeftoverGroups(directory: directory + "/groups").endAll()
        #expect(Set(ended) == [left, legacy])
        #expect(reap(left) == SIGKILL)
        #expect(reap(legacy) == SIGKILL)
        #expect(kill(bystander, 0) == 0, "a process that only shares a recorded pid is left alone")
        for slot in ["0", "1"] {
            #expect(try String(contentsOfFile: directory + "/groups/" + slot, encoding: .utf8) == "")
        }
        #expect(!files(directory).contains("7.group"))
    }
}
