import Foundation
import LullCore
import Testing

@testable import LullSensors

@Suite("shared sensor plumbing", .timeLimit(.minutes(1)))
struct SensorPlumbingTests {
    @Test("a state broadcaster yields changes only, to every subscriber, and ends on finish")
    func broadcaster() async throws {
        let broadcaster = StateBroadcaster(1)
        let a = broadcaster.changes()
        let b = broadcaster.values()
        #expect(broadcaster.update(1) == false, "same value is no change")
        #expect(broadcaster.update(2))
        var ia = a.makeAsyncIterator()
        var ib = b.makeAsyncIterator()
        #expect(await ia.next() == 2)
        #expect(await ib.next() == 2, "bufferingNewest(1): the current 1 was superseded by 2")
        broadcaster.update(3)
        broadcaster.finish()
        #expect(await ia.next() == 3)
        #expect(await ia.next() == nil)
        var late = broadcaster.changes().makeAsyncIterator()
        #expect(await late.next() == nil)
        #expect(broadcaster.current == 3)
        #expect(broadcaster.subscriberCount == 0)
    }

    @Test("interface patterns are shell globs")
    func globs() {
        let patterns: InterfacePatterns = ["wwan*", "usb[0-9]", "enx??????"]
        #expect(patterns.matches("wwan0") && patterns.matches("usb3") && patterns.matches("enx001122"))
        #expect(!patterns.matches("wlan0") && !patterns.matches("usb10") && !InterfacePatterns([]).matches("x"))
    }

    @Test("ProcessUsage of this process is plausible")
    func processUsage() {
        let usage = ProcessUsage.current()
        #expect(usage.rssBytes > 1_000_000)
        #expect(usage.cpuSeconds >= 0)
    }

    @Test("SysFiles.read trims, reads past one chunk, and refuses what is missing, unreadable or not UTF-8")
    func sysFilesRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lull-sysfiles-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        #expect(SysFiles.read(try file("value", Array(" \t42\n".utf8))) == "42")
        #expect(SysFiles.read(try file("blank", Array(" \n\n".utf8))) == "")
        #expect(SysFiles.read(try file("empty", [])) == "")
        #expect(SysFiles.read(try file("latin1", [0x63, 0x61, 0x66, 0xE9, 0x0A])) == nil)
        #expect(SysFiles.read(directory.appendingPathComponent("missing").path) == nil)
        let long = String(repeating: "line é 中\n", count: 2_000)
        #expect(SysFiles.read(try file("long", Array(long.utf8))) == String(long.dropLast()))
        // A real procfs file, which reports a size of 0.
        #expect(SysFiles.read("/proc/self/stat")?.hasPrefix("\(getpid()) (") == true)
        // A directory opens but its read fails (EISDIR): nothing, not an empty value.
        #expect(SysFiles.read(directory.path) == nil)
        #expect(SysFiles.list(directory.path) == ["blank", "empty", "latin1", "long", "value"])
    }
}
