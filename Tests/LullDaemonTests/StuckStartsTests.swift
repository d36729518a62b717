import LullCore
import Testing

@testable import LullTransfer

/// The bookkeeping of starts given up while their threads hang (the hung-mount test drives
/// the real thing; this holds the limit, which would take 16 hung starts there).
@Suite struct StuckStartsTests {
    @Test func aJobWaitsForItsOwnStuckStartAndAllWaitPastTheLimit() {
        let stuck = StuckStarts(limit: 2)
        let (first, second) = (ProcessSupervisor(), ProcessSupervisor())
        #expect(stuck.refusal(for: JobID(1)) == nil)
        #expect(stuck.giveUp(first, of: JobID(1)))
        #expect(stuck.refusal(for: JobID(1))?.code == "start_stuck", "its own start is still out")
        #expect(stuck.refusal(for: JobID(2)) == nil, "another job may start")
        #expect(stuck.giveUp(second, of: JobID(2)))
        #expect(stuck.refusal(for: JobID(3))?.retryable == true, "two out, the limit: no job starts")

        stuck.returned(first, of: JobID(1))
        #expect(stuck.count == 1)
        #expect(stuck.refusal(for: JobID(1)) == nil)
        #expect(stuck.refusal(for: JobID(3)) == nil)
        // A start whose thread returned on its own (never given up) changes nothing.
        let ran = ProcessSupervisor()
        #expect(ran.beginLaunch() && ran.launched())
        #expect(!stuck.giveUp(ran, of: JobID(4)), "a running process is not given up")
        stuck.returned(ran, of: JobID(4))
        #expect(stuck.count == 1)
    }
}
