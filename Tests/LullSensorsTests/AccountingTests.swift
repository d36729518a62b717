import Foundation
import LullCore
import Testing
@testable import LullSensors

@Suite("per-job accounting and shared plumbing", .timeLimit(.minutes(1)))
struct AccountingTests {
    @Test("bytes per link type, wall time and daemon CPU over two attempts")
    func accumulate() throws {
        let t0 = ContinuousClock.now
        var accountant = JobAccountant()
        accountant.attemptStarted(at: t0, daemonCPUSeconds: 10)
        accountant.received(1_000, over: .wifi)
        accountant.sent(200, over: .wifi)
        accountant.received(-5, over: .wifi) // ignored
        accountant.attemptEnded(at: t0 + .milliseconds(1_500), daemonCPUSeconds: 10.25)
        #expect(!accountant.isRunning)
        accountant.attemptStarted(at: t0 + .seconds(30), daemonCPUSeconds: 20)
        accountant.received(4_000, over: .cellular)
        accountant.attemptEnded(at: t0 + .seconds(32), daemonCPUSeconds: 20.5)

        let accounting = accountant.accounting
        #expect(accounting.attempts == 2)
        #expect(accounting.bytesDown.wifi == 1_000 && accounting.bytesDown.cellular == 4_000 && accounting.bytesDown.total == 5_000)
        #expect(accounting.bytesUp[.wifi] == 200)
        #expect(accounting.wallSeconds == 3.5)
        #expect(accounting.daemonCPUSeconds == 0.75)

        let json = try JSONEncoder().encode(accounting)
        #expect(try JSONDecoder().decode(JobAccounting.self, from: json) == accounting)
        // Resumed after a restart, the totals carry on.
        var resumed = JobAccountant(resuming: accounting)
        resumed.attemptStarted(at: t0, daemonCPUSeconds: 0)
        resumed.attemptEnded(at: t0 + .seconds(1), daemonCPUSeconds: 0)
        #expect(resumed.accounting.attempts == 3 && resumed.accounting.wallSeconds == 4.5)
    }

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
