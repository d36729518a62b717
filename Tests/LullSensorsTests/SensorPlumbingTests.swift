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
}
