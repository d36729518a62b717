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
        #expect(try groups.record(first) == 0)
        #expect(try groups.record(second) == 1)
        groups.clear(0)
        #expect(try records(path) == ["", "\(second) \(LeftoverGroups.startTime(of: second)!)"])
        #expect(try groups.record(third) == 0, "the lowest free slot")
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

    /// Writes `text` into slot `slot` of the file as lulld does, leaving any slot before it
    /// that was never written a hole.
    func writeSlot(_ text: String, _ slot: Int, in path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o600)
        defer { close(descriptor) }
        let padded = text.padding(toLength: LeftoverGroups.slotSize - 1, withPad: " ", startingAt: 0) + "\n"
        #expect(
            pwrite(descriptor, padded, padded.utf8.count, off_t(slot * LeftoverGroups.slotSize)) == padded.utf8.count
        )
    }

    /// A failure is marked the first of its run until a record succeeds, so the daemon tells a
    /// broken state directory once, not once per job.
    @Test func failuresAreToldOnceUntilARecordSucceeds() throws {
        let groups = LeftoverGroups(path: directory + "/running-groups")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // No such process: its start time cannot be read.
        let gone: Int32 = 0x3FFF_FFFF
        func first(_ pid: Int32) -> Bool? {
            do {
                _ = try groups.record(pid)
                return nil
            } catch {
                return error.first
            }
        }
        #expect(first(gone) == true)
        #expect(first(gone) == false)
        let slot = try groups.record(getpid())
        groups.clear(slot)
        #expect(first(gone) == true)
    }

    @Test func startUpEndsWhatACrashedDaemonLeftAndNothingElse() throws {
        let path = directory + "/running-groups"
        let (left, later, bystander) = (try leader(), try leader(), try leader())
        defer {
            kill(bystander, SIGKILL)
            _ = reap(bystander)
        }
        #expect(try LeftoverGroups(path: path).record(left) == 0)
        // Slot 1 never written (its command crashed lulld before the write): a hole of NULs
        // that must not hide slot 2.
        try writeSlot("\(later) \(LeftoverGroups.startTime(of: later)!)", 2, in: path)
        // A pid reused since: the recorded start time is not the running process's.
        try writeSlot("\(bystander) 1", 3, in: path)

        // A new instance, as a restarted lulld has.
        let ended = LeftoverGroups(path: path).endAll()
        #expect(Set(ended) == [left, later])
        #expect(reap(left) == SIGKILL)
        #expect(reap(later) == SIGKILL)
        #expect(kill(bystander, 0) == 0, "a process that only shares a recorded pid is left alone")
        #expect(try records(path).isEmpty)
        #expect(files(directory) == ["running-groups"])
    }

    /// The first start after an upgrade ends what an older lulld recorded in `ID.group` files.
    @Test func theOlderRecordsAreReadOnceAfterAnUpgrade() throws {
        let path = directory + "/running-groups"
        let (legacy, after) = (try leader(), try leader())
        defer {
            kill(after, SIGKILL)
            _ = reap(after)
        }
        let record = { (pid: Int32) in "\(pid) \(LeftoverGroups.startTime(of: pid)!)\n" }
        try record(legacy).write(toFile: directory + "/7.group", atomically: false, encoding: .utf8)
        try "x".write(toFile: directory + "/7.log", atomically: false, encoding: .utf8)
        #expect(LeftoverGroups(path: path).endAll() == [legacy])
        #expect(reap(legacy) == SIGKILL)
        #expect(files(directory) == ["7.log", "running-groups"])
        // Later starts read the slots only; no directory scan for older files.
        try record(after).write(toFile: directory + "/8.group", atomically: false, encoding: .utf8)
        #expect(LeftoverGroups(path: path).endAll().isEmpty)
        #expect(kill(after, 0) == 0)
    }
}
