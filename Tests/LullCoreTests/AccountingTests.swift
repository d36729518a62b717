import Foundation
import LullCore
import Testing

@Suite("per-job accounting")
struct AccountingTests {
    @Test("bytes per link type, wall time and daemon CPU over two attempts")
    func accumulate() throws {
        let t0 = ContinuousClock.now
        var accountant = JobAccountant()
        accountant.attemptStarted(at: t0, daemonCPUSeconds: 10)
        accountant.received(1_000, over: .wifi)
        accountant.sent(200, over: .wifi)
        accountant.received(-5, over: .wifi)  // ignored
        accountant.attemptEnded(at: t0 + .milliseconds(1_500), daemonCPUSeconds: 10.25)
        #expect(!accountant.isRunning)
        accountant.attemptStarted(at: t0 + .seconds(30), daemonCPUSeconds: 20)
        accountant.received(4_000, over: .cellular)
        accountant.attemptEnded(at: t0 + .seconds(32), daemonCPUSeconds: 20.5)

        let accounting = accountant.accounting
        #expect(accounting.attempts == 2)
        #expect(
            accounting.bytesDown.wifi == 1_000 && accounting.bytesDown.cellular == 4_000
                && accounting.bytesDown.total == 5_000
        )
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
}
